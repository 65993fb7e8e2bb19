import type { MigrationInterface, QueryRunner } from 'typeorm';

export class InitialSchema1764480000000 implements MigrationInterface {
  name = 'InitialSchema1764480000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE composition_definition (
        composition_id uuid PRIMARY KEY,
        name text NOT NULL,
        version text NOT NULL,
        service_template jsonb NOT NULL,
        state text NOT NULL,
        state_change_result text NOT NULL,
        last_msg timestamptz NOT NULL,
        element_state_map jsonb NOT NULL,
        revision_id uuid NOT NULL,
        row_version integer NOT NULL DEFAULT 1
      )`);
    await queryRunner.query(
      `CREATE INDEX composition_definition_name_version ON composition_definition (name, version)`,
    );
    await queryRunner.query(`
      CREATE TABLE automation_composition (
        instance_id uuid PRIMARY KEY,
        composition_id uuid NOT NULL REFERENCES composition_definition (composition_id),
        composition_target_id uuid REFERENCES composition_definition (composition_id),
        name text NOT NULL,
        version text NOT NULL,
        description text,
        derived_from text,
        metadata jsonb,
        precheck boolean,
        deploy_state text NOT NULL,
        lock_state text NOT NULL,
        sub_state text NOT NULL,
        state_change_result text NOT NULL,
        phase integer,
        last_msg timestamptz NOT NULL,
        revision_id uuid NOT NULL,
        row_version integer NOT NULL DEFAULT 1,
        CONSTRAINT automation_composition_name_version UNIQUE (name, version)
      )`);
    await queryRunner.query(
      `CREATE INDEX automation_composition_composition ON automation_composition (composition_id)`,
    );
    await queryRunner.query(
      `CREATE INDEX automation_composition_target ON automation_composition (composition_target_id) WHERE composition_target_id IS NOT NULL`,
    );
    await queryRunner.query(`CREATE INDEX automation_composition_last_msg ON automation_composition (last_msg)`);
    await queryRunner.query(`
      CREATE TABLE automation_composition_element (
        element_id uuid PRIMARY KEY,
        instance_id uuid NOT NULL REFERENCES automation_composition (instance_id) ON DELETE CASCADE,
        position integer NOT NULL,
        definition_name text NOT NULL,
        definition_version text NOT NULL,
        participant_id uuid,
        deploy_state text NOT NULL,
        lock_state text NOT NULL,
        sub_state text NOT NULL,
        migration_state text NOT NULL,
        stage integer,
        operational_state text,
        use_state text,
        description text,
        message text,
        properties jsonb NOT NULL,
        out_properties jsonb NOT NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX automation_composition_element_instance ON automation_composition_element (instance_id, position)`,
    );
    await queryRunner.query(
      `CREATE INDEX automation_composition_element_participant ON automation_composition_element (participant_id)`,
    );
    await queryRunner.query(`CREATE TABLE participant (participant_id uuid PRIMARY KEY)`);
    await queryRunner.query(`
      CREATE TABLE participant_supported_element (
        id uuid PRIMARY KEY,
        participant_id uuid NOT NULL REFERENCES participant (participant_id) ON DELETE CASCADE,
        type_name text NOT NULL,
        type_version text NOT NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX participant_supported_element_participant ON participant_supported_element (participant_id)`,
    );
    await queryRunner.query(`
      CREATE TABLE participant_replica (
        replica_id uuid PRIMARY KEY,
        participant_id uuid NOT NULL REFERENCES participant (participant_id) ON DELETE CASCADE,
        participant_state text NOT NULL,
        last_msg timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX participant_replica_participant ON participant_replica (participant_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE participant_replica`);
    await queryRunner.query(`DROP TABLE participant_supported_element`);
    await queryRunner.query(`DROP TABLE participant`);
    await queryRunner.query(`DROP TABLE automation_composition_element`);
    await queryRunner.query(`DROP TABLE automation_composition`);
    await queryRunner.query(`DROP TABLE composition_definition`);
  }
}
