import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Health and drift of observed elements, one row per element a participant reported an observation of. Kept apart
 * from `automation_composition_element` so an observation never bumps an instance's version nor waits for its lock;
 * the rows go with their element (ON DELETE CASCADE).
 */
export class ElementObservations1765800000000 implements MigrationInterface {
  name = 'ElementObservations1765800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE acm_element_observation (
        element_id uuid PRIMARY KEY REFERENCES automation_composition_element (element_id) ON DELETE CASCADE,
        instance_id uuid NOT NULL,
        health text NOT NULL,
        reason text NULL,
        since bigint NOT NULL,
        drift jsonb NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX acm_element_observation_instance ON acm_element_observation (instance_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE acm_element_observation`);
  }
}
