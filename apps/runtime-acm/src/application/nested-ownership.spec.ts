import type { AutomationComposition } from '@acm/domain';
import { DomainError } from '@acm/domain';
import { asParentOf, assertNotOwned, ownerOf } from './nested-ownership';

const PARENT = 'a0000000-0000-4000-8000-000000000001';

function instance(metadata: AutomationComposition['metadata']): AutomationComposition {
  return { instanceId: 'c0000000-0000-4000-8000-000000000001', metadata } as AutomationComposition;
}

describe('the ownership of a nested child', () => {
  const child = instance({ nestedIn: { instanceId: PARENT, elementId: 'e-slice' } });

  it('reads the parent from the metadata, and nobody from anything else', () => {
    expect(ownerOf(child)).toEqual({ instanceId: PARENT, elementId: 'e-slice' });
    expect(ownerOf(instance(null))).toBeNull();
    expect(ownerOf(instance({ nestedIn: 'x' }))).toBeNull();
    expect(ownerOf(instance({ nestedIn: { instanceId: 3 } }))).toBeNull();
  });

  it('refuses an order from anyone but the parent with OWNED_BY_PARENT, naming the parent and element', () => {
    let thrown: unknown;
    try {
      assertNotOwned(child, 'ordered');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DomainError);
    expect((thrown as DomainError).code).toBe('OWNED_BY_PARENT');
    expect((thrown as DomainError).message).toBe(
      `Instance ${child.instanceId} cannot be ordered: it is the nested composition of element e-slice of instance ` +
        `${PARENT}; order the parent instance`,
    );
  });

  it('lets the parent’s own orders through, and only the parent’s', async () => {
    // As an order runs: the check comes after an await, in the context the parent's run set.
    const checked = async (): Promise<void> => {
      await Promise.resolve();
      assertNotOwned(child, 'ordered');
    };
    await expect(asParentOf({ instanceId: PARENT, elementId: 'e-slice' }, checked)).resolves.toBeUndefined();
    await expect(asParentOf({ instanceId: 'another', elementId: 'e' }, checked)).rejects.toThrow(DomainError);
    expect(() => assertNotOwned(instance(null), 'ordered')).not.toThrow();
  });
});
