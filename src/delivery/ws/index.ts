export type { ApiKey, AuthConfig, Scope } from './auth.js';
export type { CatalogRace, RaceCatalog } from './catalog.js';
export {
  DEFAULT_LIMITS,
  type GatewayDeps,
  type GatewayLimits,
  type GatewayStats,
  registerWebSocketGateway,
  type WebSocketGateway,
} from './gateway.js';
