import { sqliteBackend } from './backends.js';
import { chatDeliveryContract } from './chat.contract.js';
import { feedReaderContract } from './feed-reader.contract.js';
import { outboxContract } from './outbox.contract.js';
import { takeoverContract } from './takeover.contract.js';

outboxContract('sqlite', sqliteBackend);
chatDeliveryContract('sqlite', sqliteBackend);
takeoverContract('sqlite', sqliteBackend);
feedReaderContract('sqlite', sqliteBackend);
