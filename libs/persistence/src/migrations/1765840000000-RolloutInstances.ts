import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A rollout's instances move out of its document into rows (one per selected instance: its state in the rollout
 * and the driver's tracking), so a step writes the instances it changed, not the whole fleet: a step of a rollout
 * of thousands of instances costs what its batch costs. The document keeps the rollout's own fields.
 */
export class RolloutInstances1765840000000 implements MigrationInterface {
  name = 'RolloutInstances1765840000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE acm_rollout_instance (
        rollout_id uuid NOT NULL REFERENCES acm_rollout (rollout_id) ON DELETE CASCADE,
        instance_id uuid NOT NULL,
        position integer NOT NULL,
        state text NOT NULL,
        body jsonb NOT NULL,
        tracking jsonb NULL,
        PRIMARY KEY (rollout_id, instance_id)
      )`);
    await queryRunner.query(
      `CREATE INDEX acm_rollout_instance_position ON acm_rollout_instance (rollout_id, position)`,
    );
    await queryRunner.query(`
      INSERT INTO acm_rollout_instance (rollout_id, instance_id, position, state, body, tracking)
      SELECT rollout.rollout_id, (item.value->>'instanceId')::uuid, item.position - 1, item.value->>'state', item.value,
             rollout.body->'tracking'->(item.value->>'instanceId')
      FROM acm_rollout rollout,
           jsonb_array_elements(rollout.body->'rollout'->'instances') WITH ORDINALITY AS item (value, position)`);
    await queryRunner.query(
      `UPDATE acm_rollout SET body = jsonb_build_object('rollout', (body->'rollout') - 'instances')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      UPDATE acm_rollout SET body = jsonb_build_object(
        'rollout', (body->'rollout') || jsonb_build_object('instances', COALESCE((
          SELECT jsonb_agg(item.body ORDER BY item.position) FROM acm_rollout_instance item
          WHERE item.rollout_id = acm_rollout.rollout_id), '[]'::jsonb)),
        'tracking', COALESCE((
          SELECT jsonb_object_agg(item.instance_id, item.tracking) FROM acm_rollout_instance item
          WHERE item.rollout_id = acm_rollout.rollout_id AND item.tracking IS NOT NULL), '{}'::jsonb))`);
    await queryRunner.query(`DROP TABLE acm_rollout_instance`);
  }
}
