// The local platform: every route of the platform on loopback, backed by a data directory.
export { startPlatformServer, openPlatform, defaultDataDir, newApiKey, type PlatformServer, type PlatformServerOptions } from './start.js';
export { createPlatformHandler, type PlatformHandler, type PlatformHandlerOptions } from './handler.js';
export { createAccessPolicy, type AccessOptions, type AccessPolicy } from './access.js';
export { Store, type PlatformState, type WorkspaceState, type ProjectState, type ImageState, type VersionState } from './store.js';
