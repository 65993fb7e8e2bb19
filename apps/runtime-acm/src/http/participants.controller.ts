import { Controller, Get, HttpCode, Param, Put, Query } from '@nestjs/common';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ParticipantsService } from '../application/participants.service';
import { ParticipantProtocolService } from '../engine/participant-protocol.service';
import { parsePage, parseUuid } from './request-parsing';

@ApiTags('Participant Monitoring')
@ApiBasicAuth()
@Controller('v2/participants')
export class ParticipantsController {
  constructor(
    private readonly participants: ParticipantsService,
    private readonly protocol: ParticipantProtocolService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List participants with the node templates and elements they serve' })
  list(@Query() query: Record<string, unknown>): Promise<unknown> {
    const { page, size } = parsePage(query);
    return this.participants.list(page, size);
  }

  @Put()
  @HttpCode(202)
  @ApiOperation({ summary: 'Ask every participant for its status' })
  async requestAllStatus(): Promise<void> {
    await this.protocol.requestStatus();
  }

  @Put('sync')
  @HttpCode(202)
  @ApiOperation({ summary: 'Re-send every participant the compositions and instances it serves' })
  async syncAll(): Promise<void> {
    await this.protocol.sync();
  }

  @Put('sync/:participantId')
  @HttpCode(202)
  @ApiOperation({ summary: 'Re-send one participant the compositions and instances it serves' })
  async syncOne(@Param('participantId') participantId: string): Promise<void> {
    await this.protocol.sync(parseUuid('participantId', participantId));
  }

  @Get(':participantId')
  @ApiOperation({ summary: 'Get one participant' })
  get(@Param('participantId') participantId: string, @Query() query: Record<string, unknown>): Promise<unknown> {
    const { page, size } = parsePage(query);
    return this.participants.get(parseUuid('participantId', participantId), page, size);
  }

  @Put(':participantId')
  @HttpCode(202)
  @ApiOperation({ summary: 'Ask one participant for its status' })
  async requestStatus(@Param('participantId') participantId: string): Promise<void> {
    await this.protocol.requestStatus(parseUuid('participantId', participantId));
  }

  @Get(':participantId/compositions')
  @ApiOperation({ summary: 'The compositions a participant serves, limited to its elements' })
  async compositions(
    @Param('participantId') participantId: string,
    @Query() query: Record<string, unknown>,
  ): Promise<unknown> {
    const { page, size } = parsePage(query);
    return {
      compositions: await this.participants.compositions(parseUuid('participantId', participantId), page, size),
    };
  }

  @Get(':participantId/compositions/:compositionId')
  @ApiOperation({ summary: 'One composition as a participant sees it' })
  composition(
    @Param('participantId') participantId: string,
    @Param('compositionId') compositionId: string,
  ): Promise<unknown> {
    return this.participants.composition(
      parseUuid('participantId', participantId),
      parseUuid('compositionId', compositionId),
    );
  }
}
