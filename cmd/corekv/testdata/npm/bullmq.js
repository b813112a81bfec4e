// Drives BullMQ, unchanged, against the server at 127.0.0.1:$PORT: a Queue,
// a Worker with concurrency, plain, delayed, prioritized and retried jobs,
// jobs removed on completion, and QueueEvents. Its scripts run over several
// shards (queue keys without a hash tag) and over one (a queue under a
// hash-tag prefix). Each check throws on a wrong result; the last line
// printed is "ok" when all passed.
'use strict';
const assert = require('assert');
const { Queue, Worker, QueueEvents } = require('bullmq');

const port = Number(process.env.PORT);
const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(what, deadlineMs, test) {
  const end = Date.now() + deadlineMs;
  while (!(await test())) {
    if (Date.now() > end) throw new Error('timed out waiting for ' + what);
    await sleep(20);
  }
}

async function queueFlow(prefix) {
  const name = 'mail';
  const queue = new Queue(name, { connection, prefix });
  const events = new QueueEvents(name, { connection, prefix });
  await events.waitUntilReady();
  const completedEvents = new Set();
  events.on('completed', ({ jobId }) => completedEvents.add(jobId));

  const runs = new Map();
  const started = [];
  let running = 0;
  let mostRunning = 0;
  const worker = new Worker(name, async (job) => {
    runs.set(job.id, (runs.get(job.id) || 0) + 1);
    started.push(job.name);
    running++;
    mostRunning = Math.max(mostRunning, running);
    try {
      await sleep(5);
      if (job.name === 'flaky' && job.attemptsMade < 2) throw new Error('try again');
      return job.data.n * 2;
    } finally {
      running--;
    }
  }, { connection, prefix, concurrency: 4, autorun: false });
  const workerErrors = [];
  const failedAttempts = [];
  worker.on('error', (e) => workerErrors.push(e.message));
  worker.on('failed', (job) => failedAttempts.push(job.id));

  const jobs = [];
  for (let i = 0; i < 40; i++) jobs.push(await queue.add('plain', { n: i }));
  jobs.push(...await queue.addBulk([{ name: 'bulk', data: { n: 40 } }, { name: 'bulk', data: { n: 41 } }]));
  const delayed = await queue.add('delayed', { n: 42 }, { delay: 400 });
  jobs.push(delayed);
  // Priorities: a lower number runs first; BullMQ runs jobs without one
  // before those with one.
  jobs.push(await queue.add('urgent', { n: 43 }, { priority: 1 }));
  jobs.push(await queue.add('soon', { n: 44 }, { priority: 2 }));
  const flaky = await queue.add('flaky', { n: 45 }, { attempts: 3, backoff: { type: 'fixed', delay: 50 } });
  jobs.push(flaky);
  const removed = await queue.add('removed', { n: 46 }, { removeOnComplete: true });
  jobs.push(removed);

  const before = await queue.getJobCounts('waiting', 'delayed', 'prioritized');
  assert.deepStrictEqual(before, { waiting: 44, delayed: 1, prioritized: 2 });
  assert.strictEqual(await delayed.getState(), 'delayed');

  worker.run();
  const total = jobs.length;
  await until('every job to complete', 20000, async () =>
    (await queue.getJobCounts('completed')).completed === total - 1);
  await until('the completed events', 5000, async () => completedEvents.size === total);

  for (const job of jobs) {
    const want = job.id === flaky.id ? 3 : 1;
    assert.strictEqual(runs.get(job.id), want, `job ${job.id} (${job.name}) ran ${runs.get(job.id)} times`);
    if (job.id === removed.id) {
      assert.strictEqual(await queue.getJob(job.id), undefined, 'a job removed on completion is gone');
      continue;
    }
    const done = await queue.getJob(job.id);
    assert.strictEqual(done.returnvalue, job.data.n * 2);
    assert.strictEqual(await done.getState(), 'completed');
  }
  const urgent = started.indexOf('urgent');
  assert.ok(urgent >= 0 && urgent < started.indexOf('soon'), 'priority 1 runs before priority 2');
  assert.ok(started.indexOf('delayed') > started.indexOf('plain'), 'the delayed job runs after waiting ones');
  assert.ok(mostRunning > 1 && mostRunning <= 4, 'concurrency ' + mostRunning);
  assert.deepStrictEqual(failedAttempts, [flaky.id, flaky.id], 'the flaky job failed twice before it passed');
  assert.deepStrictEqual(workerErrors, []);
  assert.deepStrictEqual(await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized'),
    { waiting: 0, active: 0, delayed: 0, failed: 0, prioritized: 0 });

  await worker.close();
  await events.close();
  await queue.close();
}

(async () => {
  await queueFlow('bull');
  console.log('bullmq over several shards: ok');
  await queueFlow('{jobs}');
  console.log('bullmq under a hash tag: ok');
  console.log('ok');
  process.exit(0);
})().catch((e) => {
  console.log('FAIL', e && e.stack || e);
  process.exit(1);
});
