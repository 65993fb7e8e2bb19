import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every definition belongs to a project, and its instances with it; the definitions there before projects, as every
 * ONAP client's, are in `default`. Lists read by project: an index on it.
 */
export class DefinitionProjects1765830000000 implements MigrationInterface {
  name = 'DefinitionProjects1765830000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE composition_definition ADD COLUMN project text NOT NULL DEFAULT 'default'`);
    await queryRunner.query(`CREATE INDEX composition_definition_project ON composition_definition (project)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX composition_definition_project`);
    await queryRunner.query(`ALTER TABLE composition_definition DROP COLUMN project`);
  }
}
