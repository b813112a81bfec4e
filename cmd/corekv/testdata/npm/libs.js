// Drives the npm libraries that run Lua on Redis against the server at
// 127.0.0.1:$PORT, unchanged: ioredis defineCommand, redlock,
// rate-limiter-flexible and bee-queue. Each check throws on a wrong
// result; the last line printed is "ok" when all passed.
'use strict';
const assert = require('assert');
const Redis = require('ioredis');
const { default: Redlock, ResourceLockedError } = require('redlock');
const { RateLimiterRedis } = require('rate-limiter-flexible');
const Queue = require('bee-queue');

const port = Number(process.env.PORT);
const opts = { host: '127.0.0.1', port, maxRetriesPerRequest: 1 };

async function defineCommand() {
  const r = new Redis(opts);
  // Two keys without a hash tag: on two shards they usually part.
  r.defineCommand('transfer', {
    numberOfKeys: 2,
    lua: `local a = tonumber(redis.call('get', KEYS[1]) or '0')
          redis.call('set', KEYS[1], a - ARGV[1])
          return redis.call('incrby', KEYS[2], ARGV[1])`,
  });
  await r.del('acct:alice', 'acct:bob');
  for (let i = 1; i <= 10; i++) {
    assert.strictEqual(await r.transfer('acct:alice', 'acct:bob', 5), 5 * i);
  }
  assert.strictEqual(await r.get('acct:alice'), '-50');
  r.disconnect();
}

async function redlock() {
  const r = new Redis(opts);
  const lock = new Redlock([r], { retryCount: 0 });
  const resource = ['locks:report'];
  const held = await lock.acquire(resource, 2000);
  // Exclusive: a second acquire fails while it is held.
  await assert.rejects(lock.acquire(resource, 2000), (e) => e.name === 'ExecutionError' || e instanceof ResourceLockedError);
  const extended = await held.extend(5000);
  assert.ok(extended.expiration > held.expiration);
  assert.ok((await r.pttl('locks:report')) > 2000);
  await extended.release();
  assert.strictEqual(await r.exists('locks:report'), 0);
  // Free again once released.
  const again = await lock.acquire(resource, 1000);
  await again.release();
  // Locks on several resources at once, of several shards.
  const multi = await lock.acquire(['locks:a', 'locks:b', 'locks:c', 'locks:d'], 2000);
  assert.strictEqual(await r.exists('locks:a', 'locks:b', 'locks:c', 'locks:d'), 4);
  await multi.release();
  assert.strictEqual(await r.exists('locks:a', 'locks:b', 'locks:c', 'locks:d'), 0);
  r.disconnect();
}

async function rateLimiter() {
  const r = new Redis({ ...opts, enableOfflineQueue: false });
  await new Promise((ok) => r.once('ready', ok));
  const limiter = new RateLimiterRedis({ storeClient: r, keyPrefix: 'rl', points: 5, duration: 10 });
  for (let i = 1; i <= 5; i++) {
    const res = await limiter.consume('user1');
    assert.strictEqual(res.remainingPoints, 5 - i);
  }
  await assert.rejects(limiter.consume('user1'), (res) => res.remainingPoints === 0 && res.msBeforeNext > 0);
  const other = await limiter.consume('user2', 2);
  assert.strictEqual(other.remainingPoints, 3);
  r.disconnect();
}

async function beeQueue() {
  const q = new Queue('corekv-jobs', { redis: { host: '127.0.0.1', port }, removeOnSuccess: false });
  await q.ready();
  const results = [];
  const done = new Promise((resolve, reject) => {
    q.on('job succeeded', (id, result) => {
      results.push(result);
      if (results.length === 5) resolve();
    });
    q.on('job failed', (id, err) => reject(err));
    setTimeout(() => reject(new Error('bee-queue jobs did not finish in 20 s')), 20000);
  });
  q.process(async (job) => job.data.x * 2);
  for (let i = 1; i <= 5; i++) {
    const job = await q.createJob({ x: i }).save();
    assert.ok(job.id);
  }
  await done;
  assert.deepStrictEqual(results.sort((a, b) => a - b), [2, 4, 6, 8, 10]);
  const counts = await q.checkHealth();
  assert.strictEqual(counts.succeeded, 5);
  assert.strictEqual(counts.waiting, 0);
  await q.close();
}

(async () => {
  for (const [name, check] of [['ioredis defineCommand', defineCommand], ['redlock', redlock],
    ['rate-limiter-flexible', rateLimiter], ['bee-queue', beeQueue]]) {
    await check();
    console.log(name + ': ok');
  }
  console.log('ok');
  process.exit(0);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
