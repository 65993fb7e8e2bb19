import type { AutomationCompositionDeployAck, ParticipantPrimeAck } from '@acm/contracts';
import type { InstanceAck, PrimeAck } from '@acm/domain';

/** A deploy/state-change ACK as the domain reads it: optional wire fields become explicit nulls. */
export function instanceAckOf(ack: AutomationCompositionDeployAck): InstanceAck {
  return {
    participantId: ack.participantId,
    replicaId: ack.replicaId ?? null,
    responseTo: ack.responseTo ?? null,
    stateChangeResult: ack.stateChangeResult,
    message: ack.message ?? null,
    stage: ack.stage ?? null,
    reports: Object.entries(ack.automationCompositionResultMap).map(([elementId, report]) => ({
      elementId,
      deployState: report.deployState,
      lockState: report.lockState,
      operationalState: report.operationalState ?? null,
      useState: report.useState ?? null,
      outProperties: report.outProperties ?? null,
      message: report.message ?? null,
      result: report.result ?? null,
    })),
  };
}

/** A PRIME_ACK as the domain reads it, with its outProperties by element node template name. */
export function primeAckOf(ack: ParticipantPrimeAck): PrimeAck {
  return {
    participantId: ack.participantId,
    replicaId: ack.replicaId ?? null,
    responseTo: ack.responseTo ?? null,
    compositionState: ack.compositionState,
    stateChangeResult: ack.stateChangeResult,
    message: ack.message ?? null,
    outProperties: new Map(
      (ack.outPropertiesList ?? []).map((entry) => [entry.elementDefinitionId.name, entry.outProperties ?? {}]),
    ),
  };
}
