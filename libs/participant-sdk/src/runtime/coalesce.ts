/**
 * Which messages of one turn leave as one record. The elements of one order usually finish in the same turn, and
 * each would answer with its own element-info STATUS and its own STATECHANGE_ACK; every record is consumed and
 * decoded by every consumer group on the topic and applied by the runtime. ONAP's protocol carries several elements
 * per message: an ACK's `automationCompositionResultMap` is keyed by element id (ONAP's SupervisionAcHandler applies
 * every entry), and a STATUS's `automationCompositionInfoList` lists the elements of each instance. So:
 *
 * - ACKs answering the same order (`responseTo`) for the same instance, with the same top-level fields
 *   (`stateChangeResult`, `message`, `stage`, `outPropertiesUpdated`, ...), merge their result maps;
 * - element-info STATUS messages of the participant about the same instance, with the same top-level fields, merge
 *   their info lists: one entry with all the instance's elements in the order they were queued. Only the same
 *   instance: the record key is the instance id, and a key shared with the instance's ACKs keeps the partition, so
 *   the runtime still reads an element's info before the ACK sent after it.
 *
 * Nothing else merges, and no message moves ahead of one about the same element (an element's info still leaves
 * before the ACK queued after it). A merged record carries the trace context of the first message it holds.
 */
import { encodeMessage } from '@acm/contracts';
import type { AutomationCompositionDeployAck, ParticipantMessage, ParticipantStatus } from '@acm/contracts';
import type { OutgoingRecord } from '@acm/messaging';

import type { Coalescible } from '../outbound-queue';

type Kind = 'ack' | 'info';

export class CoalescibleMessage implements Coalescible {
  /** A private copy of the message, made (from the encoded record) on the first absorb. */
  private merged: ParticipantMessage | undefined;
  private encoded: OutgoingRecord;

  private constructor(
    private readonly kind: Kind,
    /** What two messages must share to merge: their top-level fields. */
    private readonly sameAnswer: string,
    /** `instance:element` of every element the message is about. */
    private readonly elements: Set<string>,
    record: OutgoingRecord,
  ) {
    this.encoded = record;
  }

  /** The message as a coalescible one, or undefined when it always leaves on its own. */
  static of(message: ParticipantMessage, record: OutgoingRecord): CoalescibleMessage | undefined {
    if (record.key === null) {
      return undefined;
    }
    if (message.messageType === 'AUTOMATION_COMPOSITION_STATECHANGE_ACK') {
      const { automationCompositionResultMap, timestamp: _timestamp, ...top } = message;
      const ids = Object.keys(automationCompositionResultMap);
      // An empty map means "all deleted" to the runtime: that answer stands alone.
      if (ids.length === 0) {
        return undefined;
      }
      const instance = message.automationCompositionId.toLowerCase();
      return new CoalescibleMessage(
        'ack',
        JSON.stringify([record.key, top]),
        new Set(ids.map((id) => `${instance}:${id.toLowerCase()}`)),
        record,
      );
    }
    if (message.messageType === 'PARTICIPANT_STATUS') {
      const {
        automationCompositionInfoList,
        messageId: _messageId,
        timestamp: _timestamp,
        participantDefinitionUpdates,
        ...top
      } = message;
      if (automationCompositionInfoList === undefined || automationCompositionInfoList.length === 0) {
        return undefined;
      }
      if (participantDefinitionUpdates !== undefined) {
        return undefined;
      }
      const elements = new Set<string>();
      for (const info of automationCompositionInfoList) {
        const instance = info.automationCompositionId.toLowerCase();
        for (const element of info.elements ?? []) {
          elements.add(`${instance}:${element.automationCompositionElementId.toLowerCase()}`);
        }
        // An instance-level report without elements: nothing about that instance may pass or join it.
        if ((info.elements ?? []).length === 0) {
          elements.add(`${instance}:*`);
        }
      }
      return new CoalescibleMessage('info', JSON.stringify([record.key, top]), elements, record);
    }
    return undefined;
  }

  absorb(later: Coalescible): boolean {
    if (!(later instanceof CoalescibleMessage) || later.kind !== this.kind || later.sameAnswer !== this.sameAnswer) {
      return false;
    }
    // The same element twice keeps two records, in order: one map entry or list entry per element.
    if (this.sharesElements(later)) {
      return false;
    }
    const into = this.copy();
    const from = JSON.parse(later.encoded.value) as ParticipantMessage;
    if (this.kind === 'ack') {
      Object.assign(
        (into as AutomationCompositionDeployAck).automationCompositionResultMap,
        (from as AutomationCompositionDeployAck).automationCompositionResultMap,
      );
    } else {
      mergeInfos(into as ParticipantStatus, from as ParticipantStatus);
    }
    for (const element of later.elements) {
      this.elements.add(element);
    }
    if (this.encoded.headers === undefined && later.encoded.headers !== undefined) {
      this.encoded = { ...this.encoded, headers: later.encoded.headers };
    }
    return true;
  }

  letsPass(later: Coalescible): boolean {
    return later instanceof CoalescibleMessage && !this.sharesElements(later);
  }

  record(): OutgoingRecord {
    if (this.merged !== undefined) {
      const encoded = encodeMessage(this.merged);
      this.encoded = this.encoded.headers === undefined ? encoded : { ...encoded, headers: this.encoded.headers };
      this.merged = undefined;
    }
    return this.encoded;
  }

  private copy(): ParticipantMessage {
    // From the encoded value, not the message object: what was queued may share objects with the participant's cache.
    this.merged ??= JSON.parse(this.encoded.value) as ParticipantMessage;
    return this.merged;
  }

  private sharesElements(other: CoalescibleMessage): boolean {
    for (const element of other.elements) {
      if (this.elements.has(element) || this.elements.has(wholeInstance(element))) {
        return true;
      }
    }
    for (const element of this.elements) {
      if (other.elements.has(wholeInstance(element))) {
        return true;
      }
    }
    return false;
  }
}

function wholeInstance(element: string): string {
  return `${element.slice(0, element.indexOf(':'))}:*`;
}

/** Appends `from`'s elements to the entry of their instance (the later instance-level states win). */
function mergeInfos(into: ParticipantStatus, from: ParticipantStatus): void {
  const list = (into.automationCompositionInfoList ??= []);
  for (const info of from.automationCompositionInfoList ?? []) {
    const id = info.automationCompositionId.toLowerCase();
    const entry = list.find((candidate) => candidate.automationCompositionId.toLowerCase() === id);
    if (entry === undefined) {
      list.push(info);
      continue;
    }
    if (info.deployState !== undefined) {
      entry.deployState = info.deployState;
    }
    if (info.lockState !== undefined) {
      entry.lockState = info.lockState;
    }
    entry.elements = [...(entry.elements ?? []), ...(info.elements ?? [])];
  }
}
