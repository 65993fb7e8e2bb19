import type { Provider, Type } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import { HTTP_CONTROLLERS } from './controllers';
import { openApiDocument } from './openapi';

/** Every class a controller's constructor asks for, as an empty stand-in: describing a route never calls it. */
function standIns(): Provider[] {
  const tokens = new Set<Type>();
  for (const controller of HTTP_CONTROLLERS) {
    const parameters = (Reflect.getMetadata('design:paramtypes', controller) ?? []) as Type[];
    parameters.forEach((parameter) => tokens.add(parameter));
  }
  return [...tokens, RUNTIME_CONFIG].map((token) => ({ provide: token, useValue: {} }));
}

/**
 * The document the runtime serves, built from the same controllers without a database, a bus or a port: for
 * `npm run openapi`, which writes the committed copy the linter and the Postman collection read.
 */
export async function standaloneOpenApiDocument(contextPath: string): Promise<OpenAPIObject> {
  @Module({ controllers: [...HTTP_CONTROLLERS], providers: standIns() })
  class DescribeOnly {}
  const app = await NestFactory.create(DescribeOnly, { logger: false, abortOnError: false });
  try {
    app.setGlobalPrefix(contextPath);
    return openApiDocument(app, contextPath);
  } finally {
    await app.close();
  }
}
