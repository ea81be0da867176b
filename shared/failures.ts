/**
 * Why a delivery failed: its failed tasks, stage by stage in pipeline order. The delivery view shows
 * them first; a notification names the first.
 */
import type { Task, TasksRecord } from './schemas';
import { STAGES, type Stage } from './status';

export interface TaskFailure {
  stage: Stage;
  task: Task;
}

export function failedTasks(tasks: TasksRecord): TaskFailure[] {
  return STAGES.flatMap((stage) =>
    tasks[stage].tasks.filter((task) => task.status === 'FAILED').map((task) => ({ stage, task })),
  );
}
