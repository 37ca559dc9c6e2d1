// Typed clients for the platform's routes, and their one error hierarchy.
export { PlatformClient, type PlatformClientOptions, type CallOptions, type HostedImage } from './platform-client.js';
export * from './errors/index.js';
export * from './types.js';
export { redact, redactUrl } from './redact.js';
