import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { ParticipantProtocolService } from '../apps/runtime-acm/src/application/participant-protocol.service';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, startRuntime } from './support/runtime-harness';

interface ParticipantView {
  participant: { participantId: string; replicas: Record<string, { participantState: string }> };
}

describe('registration limits (PostgreSQL)', () => {
  let runtime: RuntimeHarness;

  beforeAll(async () => {
    runtime = await startRuntime({
      HEART_BEAT: '3600000',
      MAX_PARTICIPANTS: '2',
      MAX_PARTICIPANT_REPLICAS: '2',
      REGISTRATION_RATE_LIMIT: '3',
      // One window for the whole test: the decisions below never depend on time passing.
      REGISTRATION_RATE_WINDOW: '86400000',
    });
  });

  afterAll(async () => {
    await runtime.close();
  });

  async function register(participantId: string, replicaId: string): Promise<void> {
    await runtime.app.get(ParticipantProtocolService).register({
      messageType: 'PARTICIPANT_REGISTER',
      messageId: randomUUID(),
      timestamp: new Date().toISOString(),
      participantId,
      replicaId,
      // A type of its own per participant: a type owned by another participant is refused for another reason.
      participantSupportedElementType: [
        { id: randomUUID(), typeName: `org.example.Element${participantId}`, typeVersion: '1.0.0' },
      ],
    });
  }

  async function replicasOf(participantId: string): Promise<string[]> {
    const response = await runtime.http.get(`${BASE}/participants/${participantId}`);
    return response.status === 200 ? Object.keys((response.body as ParticipantView).participant.replicas).sort() : [];
  }

  function refusedCount(metrics: string, reason: string): number {
    const line = metrics
      .split('\n')
      .find((entry) => entry.startsWith(`acm_participant_registrations_refused_total{reason="${reason}"}`));
    return line === undefined ? 0 : Number(line.split(' ').at(-1));
  }

  it('bounds participants and replicas, limits the rate of new ones, and warns once per window', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const real = randomUUID();
    const [first, second, third] = [randomUUID(), randomUUID(), randomUUID()];
    const other = randomUUID();
    const fakes = [randomUUID(), randomUUID(), randomUUID()];
    try {
      await register(real, first);
      await register(real, second);
      await register(real, third); // a third replica: over MAX_PARTICIPANT_REPLICAS
      await register(other, randomUUID());
      for (const fake of fakes) {
        await register(fake, randomUUID()); // over MAX_PARTICIPANTS
      }
      await register(real, first); // a known replica registers again: always admitted, never counted
      await register(other, randomUUID()); // a fourth new registration in the window: over the rate

      expect(await replicasOf(real)).toEqual([first, second].sort());
      expect(await replicasOf(other)).toHaveLength(1);
      for (const fake of fakes) {
        expect(await replicasOf(fake)).toEqual([]);
      }
      const metrics = (await runtime.http.get('/onap/policy/clamp/acm/actuator/prometheus').expect(200)).text;
      expect(refusedCount(metrics, 'TOO_MANY_REPLICAS')).toBe(1);
      expect(refusedCount(metrics, 'TOO_MANY_PARTICIPANTS')).toBe(3);
      expect(refusedCount(metrics, 'RATE_LIMITED')).toBe(1);
      const warnings = warn.mock.calls.filter(([message]) => String(message).includes('refused ('));
      expect(warnings).toHaveLength(1);
      expect(String(warnings[0]?.[0])).toContain('TOO_MANY_REPLICAS');
    } finally {
      warn.mockRestore();
    }
  });
});
