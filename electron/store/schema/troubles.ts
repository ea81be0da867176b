/**
 * The cause key of a troubled dataset's failure (docs/decisions.md "Incidents"), in one place: MISSING
 * by supplier; FAILED by its first failed task's stage and shortCode; FAILED with no stored tasks, or
 * tasks with no failed task, as the unknown cause (provisional: it moves once the tasks are stored).
 */
import {
  type CauseKind,
  type ParsedCause,
  UNKNOWN_CAUSE_ID,
  causeTitle,
  failedCauseId,
  missingCauseId,
} from '../../../shared/causes';
import { STAGES, type Stage } from '../../../shared/status';

function isStage(value: string | null): value is Stage {
  return value !== null && (STAGES as readonly string[]).includes(value);
}

/** What a troubled dataset's stored failure says: its status, and its failed delivery's first failed task. */
export interface TroubleFacts {
  status: string;
  /** The failed delivery's tasks are stored. */
  known: boolean;
  stage: string | null;
  shortCode: string | null;
  supplierId: string | null;
  supplierName: string | null;
}

export interface Classified {
  causeId: string;
  kind: CauseKind;
  title: string;
  stage: Stage | null;
  shortCode: string | null;
}

export function classifyTrouble(facts: TroubleFacts): Classified {
  const { status, stage, shortCode } = facts;
  if (status === 'MISSING') {
    const cause: ParsedCause = { kind: 'missing', supplierId: facts.supplierId };
    return {
      causeId: missingCauseId(facts.supplierId),
      kind: 'missing',
      title: causeTitle(cause, facts.supplierName),
      stage: null,
      shortCode: null,
    };
  }
  if (facts.known && isStage(stage)) {
    return {
      causeId: failedCauseId(stage, shortCode),
      kind: 'failed',
      title: causeTitle({ kind: 'failed', stage, shortCode }),
      stage,
      shortCode,
    };
  }
  return {
    causeId: UNKNOWN_CAUSE_ID,
    kind: 'unknown',
    title: causeTitle({ kind: 'unknown' }),
    stage: null,
    shortCode: null,
  };
}
