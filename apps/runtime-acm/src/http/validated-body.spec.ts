import { isDomainError } from '@acm/domain';
import { AcTypeStateUpdate } from './dto/composition.dto';
import { AcInstanceStateUpdate } from './dto/instance.dto';
import { validatedBody } from './validated-body';

function refusal(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (isDomainError(error)) {
      return { code: error.code, message: error.message };
    }
    throw error;
  }
  throw new Error('not refused');
}

describe('validatedBody, the DTO classes validating the order bodies', () => {
  it('takes a valid order and leaves absent and null ones out', () => {
    expect(validatedBody(AcInstanceStateUpdate, { deployOrder: 'DEPLOY', lockOrder: null })).toEqual({
      deployOrder: 'DEPLOY',
      lockOrder: null,
    });
    expect(validatedBody(AcTypeStateUpdate, {})).toEqual({});
  });

  it('names the field, the value and the vocabulary of a value outside it', () => {
    expect(refusal(() => validatedBody(AcTypeStateUpdate, { primeOrder: 'SHINE' }))).toEqual({
      code: 'VALIDATION_FAILED',
      message: 'primeOrder: "SHINE" is not one of NONE, PRIME, DEPRIME',
    });
  });

  it('reports every broken field, one per line, in the order the class declares them', () => {
    const { message } = refusal(() =>
      validatedBody(AcInstanceStateUpdate, { subOrder: 7, lockOrder: 'OPEN', deployOrder: 'LAUNCH' }),
    );
    expect(message.split('\n')).toEqual([
      'deployOrder: "LAUNCH" is not one of NONE, UNDEPLOY, DEPLOY, DELETE, UPDATE, RESTARTING, MIGRATE, MIGRATION_REVERT, UPDATE_REVERT',
      'lockOrder: "OPEN" is not one of NONE, UNLOCK, LOCK',
      'subOrder: 7 is not one of NONE, MIGRATE_PRECHECK, PREPARE, REVIEW',
    ]);
  });

  it('refuses a body that is not an object', () => {
    for (const body of [undefined, 'DEPLOY', ['DEPLOY'], null]) {
      expect(refusal(() => validatedBody(AcInstanceStateUpdate, body))).toEqual({
        code: 'VALIDATION_FAILED',
        message: 'body: must be an object',
      });
    }
  });
});
