/**
 * The rows of ONAP's `clampacm` database as the import reads them (ONAP policy-clamp Liquibase changelog up to
 * 1801). Column values arrive as the driver gives them: text as strings, smallint/integer as numbers, NULL as null.
 * `lastMsg` is the column's epoch milliseconds, read by the adapter (`timestamp without time zone`, written by ONAP
 * in UTC). A field typed `unknown` is checked here, so a row a hand-made insert got wrong is refused, never trusted.
 */

/** `automationcompositiondefinition` and its `nodetemplatestate` rows. */
export interface OnapDefinitionRow {
  readonly compositionId: unknown;
  readonly name: unknown;
  readonly version: unknown;
  /** ONAP's JSON of its `DocToscaServiceTemplate`: maps keyed `name:version`. */
  readonly serviceTemplate: unknown;
  readonly state: unknown;
  readonly stateChangeResult: unknown;
  readonly lastMsg: unknown;
  readonly revisionId: unknown;
}

export interface OnapNodeTemplateStateRow {
  readonly nodeTemplateStateId: unknown;
  readonly compositionId: unknown;
  readonly message: unknown;
  readonly nodeTemplateName: unknown;
  readonly nodeTemplateVersion: unknown;
  readonly outProperties: unknown;
  readonly participantId: unknown;
  readonly state: unknown;
}

/** `automationcomposition`. */
export interface OnapInstanceRow {
  readonly instanceId: unknown;
  readonly compositionId: unknown;
  readonly compositionTargetId: unknown;
  readonly name: unknown;
  readonly version: unknown;
  readonly description: unknown;
  readonly deployState: unknown;
  readonly lockState: unknown;
  readonly subState: unknown;
  readonly stateChangeResult: unknown;
  readonly phase: unknown;
  readonly lastMsg: unknown;
  readonly revisionId: unknown;
}

/** `automationcompositionelement`. */
export interface OnapElementRow {
  readonly elementId: unknown;
  readonly instanceId: unknown;
  readonly definitionName: unknown;
  readonly definitionVersion: unknown;
  readonly participantId: unknown;
  readonly deployState: unknown;
  readonly lockState: unknown;
  readonly subState: unknown;
  readonly migrationState: unknown;
  readonly stage: unknown;
  readonly operationalState: unknown;
  readonly useState: unknown;
  readonly description: unknown;
  readonly message: unknown;
  readonly properties: unknown;
  readonly outProperties: unknown;
}

/** `participant` and its `participantsupportedacelements` rows. */
export interface OnapParticipantRow {
  readonly participantId: unknown;
}

export interface OnapSupportedElementRow {
  readonly id: unknown;
  readonly participantId: unknown;
  readonly typeName: unknown;
  readonly typeVersion: unknown;
}

/** Everything the import reads from one ONAP database. */
export interface OnapSnapshot {
  readonly definitions: readonly OnapDefinitionRow[];
  readonly nodeTemplateStates: readonly OnapNodeTemplateStateRow[];
  readonly instances: readonly OnapInstanceRow[];
  readonly elements: readonly OnapElementRow[];
  readonly participants: readonly OnapParticipantRow[];
  readonly supportedElements: readonly OnapSupportedElementRow[];
}
