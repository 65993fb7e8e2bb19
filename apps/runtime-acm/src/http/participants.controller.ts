import { Controller, Get, HttpCode, Param, Put, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import type {
  CompositionDto as CompositionAnswer,
  ParticipantInformation as ParticipantAnswer,
} from '../application/participants.service';
import { ParticipantsService } from '../application/participants.service';
import { ParticipantProtocolService } from '../application/participant-protocol.service';
import { CompositionDto, CompositionDtos, ParticipantInformation } from './dto/participant.dto';
import { ApiController, ApiPaging, ApiRefusals, ApiUuidParam, TAGS } from './openapi';
import { parsePage, parseUuid } from './request-parsing';

const PARTICIPANT_ID = 'The participantId the participant registered with';

@ApiController(TAGS.participant)
@Controller('v2/participants')
export class ParticipantsController {
  constructor(
    private readonly participants: ParticipantsService,
    private readonly protocol: ParticipantProtocolService,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'queryParticipants',
    summary: 'List participants with the node templates and elements they serve',
  })
  @ApiPaging()
  @ApiOkResponse({ type: [ParticipantInformation], description: 'Every registered participant' })
  @ApiRefusals(400)
  list(@Query() query: Record<string, unknown>): Promise<ParticipantAnswer[]> {
    const { page, size } = parsePage(query);
    return this.participants.list(page, size);
  }

  @Put()
  @HttpCode(202)
  @ApiOperation({ operationId: 'orderAllParticipantsReport', summary: 'Ask every participant for its status' })
  @ApiAcceptedResponse({ description: 'Asked' })
  async requestAllStatus(): Promise<void> {
    await this.protocol.requestStatus();
  }

  @Put('sync')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'manualRestartAllParticipants',
    summary: 'Re-send every participant the compositions and instances it serves',
  })
  @ApiAcceptedResponse({ description: 'Sent' })
  async syncAll(): Promise<void> {
    await this.protocol.sync();
  }

  @Put('sync/:participantId')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'manualRestartParticipant',
    summary: 'Re-send one participant the compositions and instances it serves',
  })
  @ApiUuidParam('participantId', PARTICIPANT_ID)
  @ApiAcceptedResponse({ description: 'Sent' })
  @ApiRefusals(400, 404)
  async syncOne(@Param('participantId') participantId: string): Promise<void> {
    await this.protocol.sync(parseUuid('participantId', participantId));
  }

  @Get(':participantId')
  @ApiOperation({ operationId: 'getParticipant', summary: 'Get one participant' })
  @ApiUuidParam('participantId', PARTICIPANT_ID)
  @ApiPaging()
  @ApiOkResponse({ type: ParticipantInformation, description: 'The participant' })
  @ApiRefusals(400, 404)
  get(
    @Param('participantId') participantId: string,
    @Query() query: Record<string, unknown>,
  ): Promise<ParticipantAnswer> {
    const { page, size } = parsePage(query);
    return this.participants.get(parseUuid('participantId', participantId), page, size);
  }

  @Put(':participantId')
  @HttpCode(202)
  @ApiOperation({ operationId: 'orderParticipantReport', summary: 'Ask one participant for its status' })
  @ApiUuidParam('participantId', PARTICIPANT_ID)
  @ApiAcceptedResponse({ description: 'Asked' })
  @ApiRefusals(400, 404)
  async requestStatus(@Param('participantId') participantId: string): Promise<void> {
    await this.protocol.requestStatus(parseUuid('participantId', participantId));
  }

  @Get(':participantId/compositions')
  @ApiOperation({
    operationId: 'queryCompositionDto',
    summary: 'The compositions a participant serves, limited to its elements',
  })
  @ApiUuidParam('participantId', PARTICIPANT_ID)
  @ApiPaging()
  @ApiOkResponse({ type: CompositionDtos, description: 'Its compositions' })
  @ApiRefusals(400, 404)
  async compositions(
    @Param('participantId') participantId: string,
    @Query() query: Record<string, unknown>,
  ): Promise<CompositionDtos> {
    const { page, size } = parsePage(query);
    return {
      compositions: await this.participants.compositions(parseUuid('participantId', participantId), page, size),
    };
  }

  @Get(':participantId/compositions/:compositionId')
  @ApiOperation({ operationId: 'getCompositionDto', summary: 'One composition as a participant sees it' })
  @ApiUuidParam('participantId', PARTICIPANT_ID)
  @ApiUuidParam('compositionId', 'The compositionId of a definition')
  @ApiOkResponse({ type: CompositionDto, description: 'The composition' })
  @ApiRefusals(400, 404)
  composition(
    @Param('participantId') participantId: string,
    @Param('compositionId') compositionId: string,
  ): Promise<CompositionAnswer> {
    return this.participants.composition(
      parseUuid('participantId', participantId),
      parseUuid('compositionId', compositionId),
    );
  }
}
