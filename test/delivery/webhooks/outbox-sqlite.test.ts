import { sqliteBackend } from './backends.js';
import { chatDeliveryContract } from './chat.contract.js';
import { endpointsContract } from './endpoints.contract.js';
import { feedReaderContract } from './feed-reader.contract.js';
import { historyContract } from './history.contract.js';
import { outboxContract } from './outbox.contract.js';
import { queueContract } from './queue.contract.js';
import { takeoverContract } from './takeover.contract.js';

outboxContract('sqlite', sqliteBackend);
chatDeliveryContract('sqlite', sqliteBackend);
takeoverContract('sqlite', sqliteBackend);
feedReaderContract('sqlite', sqliteBackend);
queueContract('sqlite', sqliteBackend);
endpointsContract('sqlite', sqliteBackend);
historyContract('sqlite', sqliteBackend);
