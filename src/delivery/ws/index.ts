export type { ApiKey, AuthConfig, Scope } from '../core/auth.js';
export type { CatalogRace, RaceCatalog } from '../core/catalog.js';
export {
  DEFAULT_WS_LIMITS,
  type GatewayDeps,
  type GatewayStats,
  registerWebSocketGateway,
  type WebSocketGateway,
  type WebSocketLimits,
} from './gateway.js';
