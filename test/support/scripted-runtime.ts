import { randomUUID } from 'node:crypto';
import { MessageBus } from '@acm/messaging';
import type { DestinationStream } from 'pino';
import type { RuntimeHarness } from './runtime-harness';
import { participantRegistered, startRuntime } from './runtime-harness';
import { ScriptedParticipant } from './scripted-participant';

/** ONAP's simulator element type, the one the scripted participant of the engine specs supports. */
export const SIM_ELEMENT_TYPE = {
  typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement',
  typeVersion: '1.0.0',
} as const;

export interface ScriptedRuntime {
  readonly runtime: RuntimeHarness;
  readonly participant: ScriptedParticipant;
}

/**
 * A runtime on the real PostgreSQL with one scripted participant registered over its in-process bus: the setup the
 * engine specs share. `autoAnswer: false` leaves every answer to the test. The caller stops the participant, then
 * closes the runtime.
 */
export async function startWithScriptedParticipant(
  env: Record<string, string> = {},
  options: { logDestination?: DestinationStream; autoAnswer?: boolean } = {},
): Promise<ScriptedRuntime> {
  const { autoAnswer = true, ...runtimeOptions } = options;
  const runtime = await startRuntime(env, runtimeOptions);
  const participant = new ScriptedParticipant(runtime.app.get(MessageBus), randomUUID(), [SIM_ELEMENT_TYPE]);
  participant.autoAnswer = autoAnswer;
  await participant.start();
  await participantRegistered(runtime, participant.participantId);
  return { runtime, participant };
}
