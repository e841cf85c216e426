// A worker for the pool's tests: answers each task after `delayMs`, fails on `fail`, or never loads when told to.
import { parentPort, workerData } from 'node:worker_threads';

if (workerData?.failToLoad) {
  parentPort.postMessage({ ready: false, error: { message: 'The test model is missing.', code: 'embedder_model_invalid', hint: 'Reinstall it.' } });
} else {
  parentPort.on('message', ({ id, task }) => {
    setTimeout(() => {
      if (task.fail) parentPort.postMessage({ id, error: { message: `task ${task.value} failed` } });
      else parentPort.postMessage({ id, result: { value: task.value, threadId: workerData?.tag ?? null } });
    }, task.delayMs ?? 0);
  });
  parentPort.postMessage({ ready: true });
}
