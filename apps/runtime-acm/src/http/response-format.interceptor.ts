import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { Injectable, StreamableFile } from '@nestjs/common';
import type { Request, Response } from 'express';
import { dump } from 'js-yaml';
import type { Observable } from 'rxjs';
import { map } from 'rxjs';
import { TextBody } from './text-body';

/** Answers in YAML when the client prefers it over JSON (ONAP produces both); JSON otherwise. */
@Injectable()
export class ResponseFormatInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler<unknown>): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const preferred = request.accepts(['application/json', 'application/yaml', 'text/yaml']);
    const wantsYaml = preferred === 'application/yaml' || preferred === 'text/yaml';
    return next.handle().pipe(
      map((body) => {
        if (body === undefined || body instanceof StreamableFile) {
          return body;
        }
        if (body instanceof TextBody) {
          response.type(body.contentType);
          return body.text;
        }
        if (wantsYaml) {
          response.type('application/yaml');
          return dump(body, { noRefs: true, lineWidth: -1 });
        }
        response.type('application/json');
        return JSON.stringify(body);
      }),
    );
  }
}
