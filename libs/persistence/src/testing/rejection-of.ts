/** The error a promise rejects with; fails the test when it resolves. */
export async function rejectionOf(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  throw new Error('expected the database call to fail');
}
