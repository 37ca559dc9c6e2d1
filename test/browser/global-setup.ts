// Closes the servers that browser-test commands started, so that Vitest can exit.
import { closeCommandServers } from './commands.js';

export default function setup(): () => Promise<void> {
  return closeCommandServers;
}
