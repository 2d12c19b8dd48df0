import { afterAll, it } from 'vitest';
import { redisBackends } from './backends.js';
import { chatDeliveryContract } from './chat.contract.js';
import { endpointsContract } from './endpoints.contract.js';
import { feedReaderContract } from './feed-reader.contract.js';
import { historyContract } from './history.contract.js';
import { outboxContract } from './outbox.contract.js';
import { queueContract } from './queue.contract.js';
import { takeoverContract } from './takeover.contract.js';

const url = process.env.REDIS_URL;

if (!url) {
  it.skip('Redis webhook outbox: skipped because REDIS_URL is unset', () => {});
} else {
  const backends = redisBackends(url);
  afterAll(() => backends.cleanup());
  outboxContract('redis', backends.factory);
  chatDeliveryContract('redis', backends.factory);
  takeoverContract('redis', backends.factory);
  feedReaderContract('redis', backends.factory);
  queueContract('redis', backends.factory);
  endpointsContract('redis', backends.factory);
  historyContract('redis', backends.factory);
}
