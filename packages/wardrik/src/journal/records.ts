import type { Answer, Label, Measures } from '@wardrik/core';
import type { Message, ModelToolCall, Usage } from '../model/model.js';

/**
 * The journal format version written by this code. Older versions must keep loading.
 * 2 added sessions (`run-started`'s `session`, `history`, `labels`), state writes
 * (`call-answered`'s `state`), and what a model step was offered (`model-step`'s `tools`,
 * `labels`, `unavailable`): a Wardrik that reads only version 1 must not take such a run for one
 * without them. 3 added agents handing runs to each other and child runs (`agent-transferred`,
 * `child-run-started`, `run-started`'s `parent`, `model-step`'s `agent`), callbacks
 * (`call-changed`, `model-step`'s `callback`), and telemetry (`run-started`'s `trace`). 4 added
 * labels that answers given in a call's place must carry (`call-started`'s `labels`, and
 * `resultLabels` on `tool` and `in_doubt` parks): a Wardrik that reads only version 3 would let a
 * person's answer to such a call drop them. It also added state shared with child runs
 * (`run-started`'s `state`), an agent's `outputKey` (`run-ended`'s `state`), final answers sent
 * back for not matching `outputSchema` (`model-step`'s `outputRejected`) and guardrails
 * (`run-ended`'s `guardrail`). 5 added questions a call asks a person while it runs
 * (`input-requested`, `input-withdrawn`, parks of kind `input`) and runs that wait for a person to
 * sign in to an MCP server (parks of kind `authorize`): a Wardrik that reads only version 4 would
 * take an open `input` park for the run's own and drive it wrong.
 */
export const JOURNAL_VERSION = 5;

/** Limits that park a run with kind `budget` when reached. */
export interface Budget {
  readonly usd?: number;
  /** Input plus output tokens. */
  readonly tokens?: number;
  /** Model steps. */
  readonly steps?: number;
}

/**
 * Why a run waits: for a person (`tool`, `in_doubt`, `budget`, `approval`), for work a
 * long-running tool started outside the run to finish (`external`, see `started`), or for a
 * person to sign in to a remote MCP server (`authorize`: `details` has the URL to open). An
 * `input` park is a question a call asks a person while it runs (an MCP server's elicitation): the
 * run does not stop for it, the call waits (see `InputRequestedRecord`).
 */
export type ParkKind = 'tool' | 'in_doubt' | 'budget' | 'approval' | 'external' | 'input' | 'authorize';

/** Every kind of park, in the order metrics and listings show them. */
export const PARK_KINDS: readonly ParkKind[] = [
  'tool',
  'approval',
  'in_doubt',
  'budget',
  'external',
  'input',
  'authorize',
];

/** The call a park holds. */
export interface ParkedCall {
  readonly callId: string;
  readonly name: string;
  readonly arguments: unknown;
  readonly idempotencyKey: string;
}

/** A question to a person. The answer must name `callHash`: it binds the answer to this exact call. */
export interface Park {
  readonly id: string;
  readonly runId: string;
  readonly kind: ParkKind;
  readonly reason: string;
  readonly details?: unknown;
  /** The call it holds (none for a budget park). */
  readonly call?: ParkedCall;
  /** The labels the run carried when it parked. */
  readonly labels: readonly Label[];
  /** What the call reported before it parked or was lost (added to the run's measures). */
  readonly measures?: Measures;
  /** A hash of the park's kind, id and call: what an answer must name. */
  readonly callHash: string;
  /** For an approval: the policy rule that held the call. */
  readonly rule?: string;
  /**
   * For an `in_doubt` park made when another process took the run over: the node that started
   * the call and lost the run. It may have been paused, not stopped, and still finish the call;
   * a `retry` then needs `previousHolderStopped` on a store many processes share.
   */
  readonly holder?: CallHolder;
  /** For an `external` park: the tool's handle for the work its result will name. */
  readonly handle?: string;
  /** For an `external` park: when the wait ends without a result (ms since the epoch). */
  readonly deadline?: number;
  /**
   * The labels an answer given in the call's place carries (a person's `answer`, an external
   * result): those the tool's `started` or `park` answer gave, or for an `in_doubt` park the tool's
   * `labels` annotation and what the call reported before it was lost.
   */
  readonly resultLabels?: readonly Label[];
  readonly createdAt: number;
}

/**
 * A person's answer to a park.
 * - `answer`: the call's answer is `value` (for `in_doubt`: "it ran, here is its answer").
 * - `retry`: run the call now (for `in_doubt`: "it did not run"). The tool sees `context.approval`.
 *   When another process started the call and may still finish it, `previousHolderStopped` too.
 * - `fail`: the model gets an error answer with `reason`.
 * - `approve`: (approvals) run the call exactly as shown; `remember` also allows this tool for the
 *   rest of the run, or for the agent from now on.
 * - `deny`: (approvals) the model is told a person declined.
 * - `edit`: (approvals) run the call with these arguments instead; the model is told.
 * - `raise-budget`: (budget parks) new limits; the run goes on.
 * - `stop`: (budget parks) end the run as failed.
 *
 * An `input` park takes `answer` (accept: `value` is what the person filled in, checked against
 * the question's schema, its defaults applied), `deny` (decline) or `stop` (cancel the question,
 * not the run). An `authorize` park takes `retry` (the sign-in is done: go on) or `stop` (end the
 * run as failed).
 */
export type ParkDecision =
  | ({ readonly type: 'answer'; readonly value: unknown } & CarriedByResult)
  | {
      readonly type: 'retry';
      readonly note?: string;
      /**
       * For an `in_doubt` park whose call another process started (`Park.holder`), on a store
       * many processes share: the person checked that it stopped (or accepts that the call may
       * run twice). Without it, such a retry is refused, saying why.
       */
      readonly previousHolderStopped?: true;
    }
  | ({ readonly type: 'fail'; readonly reason?: string } & CarriedByResult)
  | { readonly type: 'approve'; readonly note?: string; readonly remember?: 'run' | 'agent' }
  | { readonly type: 'deny'; readonly reason?: string }
  | { readonly type: 'edit'; readonly arguments: Record<string, unknown>; readonly note?: string }
  | { readonly type: 'raise-budget'; readonly budget: Budget }
  | { readonly type: 'stop'; readonly reason?: string };

/**
 * What the result of external work brings besides its value (see `ExternalOutcome`): set by
 * Wardrik when it delivers such a result (a child run's labels and cost), never by a person's answer.
 */
export interface CarriedByResult {
  readonly labels?: readonly Label[];
  readonly measures?: Measures;
}

/** How a run ended. */
export type EndStatus = 'completed' | 'failed' | 'cancelled';

interface Base {
  /** The journal format version. */
  readonly v: number;
  /** When, in ms since the epoch. */
  readonly at: number;
}

/** A run began. */
export interface RunStartedRecord extends Base {
  readonly type: 'run-started';
  readonly agent: string;
  readonly principal: string;
  readonly input: string;
  readonly budget: Budget;
  readonly maxSteps: number;
  /** The app whose `user:` and `app:` state the run reads (the agent's `app`). Absent before version 2: the agent's name. */
  readonly app?: string;
  /**
   * The session the run continues; for a child run, the session of the run that called it (the
   * child reads and writes its state, and takes no turn of its own).
   */
  readonly session?: string;
  /**
   * The conversation before this run, as the model sees it (the session's window, its summary
   * first): journaled so that the run is rebuilt from its own journal alone.
   */
  readonly history?: readonly Message[];
  /**
   * The labels the run starts with: those the session's previous run ended with, or for a child
   * run those its parent carried when it called the child.
   */
  readonly labels?: readonly Label[];
  /** For a child run (an agent called as a tool, a workflow's step): the run and call that started it. */
  readonly parent?: ParentLink;
  /**
   * For a child run: the run-only state (`temp:` keys, and unprefixed keys without a session) its
   * parent held when it called it, with their labels (since version 4). What the child writes of
   * it goes back to the parent with the call's answer.
   */
  readonly state?: readonly StateWrite[];
  /**
   * The trace context the run's telemetry continues (W3C `traceparent`, `tracestate`), when
   * telemetry was on as it started: a run resumed elsewhere or later joins the same trace.
   */
  readonly trace?: Readonly<Record<string, string>>;
}

/** The run and call a child run was started by. */
export interface ParentLink {
  readonly runId: string;
  readonly callId: string;
}

/** The model answered: text and the calls it asked for, named by Wardrik. */
export interface ModelStepRecord extends Base {
  readonly type: 'model-step';
  readonly step: number;
  readonly model: string;
  readonly text: string;
  readonly toolCalls: readonly ModelToolCall[];
  readonly usage: Usage;
  readonly measures: Measures;
  /** The model stopped at its output token limit; the run ended failed after this step. */
  readonly truncated?: true;
  /** The names of the tools the model was offered, when they differ from the previous step's (always at step 1). */
  readonly tools?: readonly string[];
  /** Labels the step took from state it read (templated instructions, toolsets) and from the tool definitions it was offered (see `unpinned`). */
  readonly labels?: readonly Label[];
  /** Toolsets left out of this step, and why (they threw or took too long). */
  readonly unavailable?: readonly { readonly toolset: string; readonly reason: string }[];
  /** The agent that spoke, when it is not the run's own (the run was transferred to it). */
  readonly agent?: string;
  /** The agent's callback that made or changed this answer instead of the model (`beforeModel`, `afterModel`). */
  readonly callback?: 'beforeModel' | 'afterModel';
  /**
   * Why this final answer does not match the agent's `outputSchema` (since version 4): the model
   * is told, and asked again.
   */
  readonly outputRejected?: string;
  /**
   * The tool definitions that made this step carry labels the run did not carry yet (`labels`):
   * offered by a source that is not trusted (an MCP server, a worker) and not pinned as they are,
   * each with its source and the hash that would pin it. It explains `labels`, which the run's
   * state folds; a Wardrik that does not know it loses nothing by ignoring it (so no new version).
   */
  readonly unpinned?: readonly UnpinnedTool[];
}

/** A tool definition a model step was offered that labelled it: where it came from, and the hash to pin it with. */
export interface UnpinnedTool {
  /** `mcp:NAME` for an MCP toolset, `worker:PRINCIPAL` for a worker. */
  readonly source: string;
  /** The tool's name as the source lists it (the pin's key). */
  readonly tool: string;
  /** `sha256:…`: the pin that would trust the definition as it is, once reviewed. */
  readonly hash?: string;
  /** It was pinned, and differs from its pin (the source changed it). */
  readonly changed?: true;
}

/** An agent's `beforeTool` callback changed a call's arguments before the policy judged it. */
export interface CallChangedRecord extends Base {
  readonly type: 'call-changed';
  readonly callId: string;
  readonly arguments: unknown;
  readonly by: 'beforeTool';
}

/** The model handed the run to another agent (`transfer_to_agent`): the run goes on under `to`. */
export interface AgentTransferredRecord extends Base {
  readonly type: 'agent-transferred';
  readonly callId: string;
  readonly from: string;
  readonly to: string;
  /** Why, as the model said. */
  readonly reason?: string;
}

/** A call of an agent used as a tool started a child run: its answer is the child's final answer. */
export interface ChildRunStartedRecord extends Base {
  readonly type: 'child-run-started';
  readonly callId: string;
  readonly childRunId: string;
  readonly agent: string;
}

/** A call's intent, written before the tool is invoked. */
export interface CallStartedRecord extends Base {
  readonly type: 'call-started';
  readonly callId: string;
  readonly name: string;
  readonly arguments: unknown;
  readonly idempotencyKey: string;
  readonly repeatable: boolean;
  /** 1 for the first try; higher for retries and recoveries. */
  readonly attempt: number;
  /** The policy rule that let the call run (or `approved` when a person did). */
  readonly rule?: string;
  /**
   * The labels every answer of the call carries, also one a person gives in its place after a
   * crash: its tool's `labels` annotation (since version 4).
   */
  readonly labels?: readonly Label[];
  /** For a call that is not repeatable: the node that runs it, and its lease on the run (since version 4). */
  readonly holder?: CallHolder;
}

/**
 * Who ran a call that may end in doubt: the node's name, its incarnation (its life as that node:
 * see `LeaseTerms.incarnation`) and its lease's epoch; on a park, also when it started the call.
 */
export interface CallHolder {
  readonly node: string;
  readonly incarnation: string;
  readonly epoch: number;
  readonly startedAt?: number;
}

/** A call's answer, written before the model sees it. */
export interface CallAnsweredRecord extends Base {
  readonly type: 'call-answered';
  readonly callId: string;
  readonly answer: Answer;
  readonly attempts: number;
  /** When a policy refused the call: the rule that did. */
  readonly rule?: string;
  /** The state writes the call made, applied with its answer (each labelled as the answer and run were). */
  readonly state?: readonly StateWrite[];
}

/** A state write as journaled: a new value for `key`, or its deletion, and the labels it carries. */
export interface StateWrite {
  readonly key: string;
  readonly value?: unknown;
  readonly deleted?: true;
  readonly labels: readonly Label[];
}

/** The run waits for a person. */
export interface RunParkedRecord extends Base {
  readonly type: 'run-parked';
  readonly park: Park;
}

/**
 * A call asks a person while it runs (since version 5): `park` is of kind `input`, its `details`
 * the question (`InputQuestion`). The run and the call go on waiting; the answer is a
 * `park-answered` record, after which the call goes on with it.
 */
export interface InputRequestedRecord extends Base {
  readonly type: 'input-requested';
  readonly park: Park;
}

/**
 * A call's question to a person closed without an answer (since version 5): the call ended or
 * stopped waiting, or the node that ran it stopped (the call itself is then lost or in doubt).
 */
export interface InputWithdrawnRecord extends Base {
  readonly type: 'input-withdrawn';
  readonly parkId: string;
  readonly reason: string;
}

/** A person answered a park. */
export interface ParkAnsweredRecord extends Base {
  readonly type: 'park-answered';
  readonly parkId: string;
  readonly decision: ParkDecision;
  readonly by: string;
}

/** A person released labels from the run (the only way labels ever weaken). */
export interface LabelsReleasedRecord extends Base {
  readonly type: 'labels-released';
  readonly labels: readonly Label[];
  readonly by: string;
  readonly reason: string;
}

/** The run ended; its output carries every label the run saw. */
export interface RunEndedRecord extends Base {
  readonly type: 'run-ended';
  readonly status: EndStatus;
  readonly output?: string;
  readonly error?: string;
  readonly labels: readonly Label[];
  readonly measures: Measures;
  /** The agent's `outputKey` set to the final answer (since version 4), labelled as the answer is. */
  readonly state?: readonly StateWrite[];
  /** The guardrail that stopped the run (since version 4). */
  readonly guardrail?: { readonly name: string; readonly stage: 'input' | 'output'; readonly reason: string };
}

/** One entry of a run's append-only journal. */
export type JournalRecord =
  | RunStartedRecord
  | ModelStepRecord
  | CallChangedRecord
  | CallStartedRecord
  | CallAnsweredRecord
  | AgentTransferredRecord
  | ChildRunStartedRecord
  | RunParkedRecord
  | InputRequestedRecord
  | InputWithdrawnRecord
  | ParkAnsweredRecord
  | LabelsReleasedRecord
  | RunEndedRecord;

/** The type names of journal records (and of run events). */
export type JournalRecordType = JournalRecord['type'];

/** A record as stored: with its run and its position in the run's journal. */
export interface StoredRecord {
  readonly runId: string;
  readonly seq: number;
  readonly record: JournalRecord;
}
