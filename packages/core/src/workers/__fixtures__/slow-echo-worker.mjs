// A worker for the pool's tests: answers each task after `delayMs`, fails on `fail`, or never loads when told to.
// A task with `values` (a batch) is echoed with `batch`, the values this worker ran together.
import { parentPort, workerData } from 'node:worker_threads';

if (workerData?.failToLoad) {
  parentPort.postMessage({ ready: false, error: { message: 'The test model is missing.', code: 'embedder_model_invalid', hint: 'Reinstall it.' } });
} else {
  parentPort.on('message', ({ id, task }) => {
    setTimeout(() => {
      if (task.fail) parentPort.postMessage({ id, error: { message: `task ${task.value ?? task.values} failed` } });
      else if (task.values) parentPort.postMessage({ id, result: { values: task.values, batch: task.values } });
      else parentPort.postMessage({ id, result: { value: task.value, threadId: workerData?.tag ?? null } });
    }, task.delayMs ?? 0);
  });
  parentPort.postMessage({ ready: true });
}
