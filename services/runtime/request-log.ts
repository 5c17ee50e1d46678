// How the HTTP servers (MCP and the web view) log their requests. Fastify's default writes two
// info lines per request, "incoming request" and "request completed"; an MCP client sends a
// request per call and a ping between, so at `brain serve`'s info level that was two
// synchronous writes of JSON per call. Measured with a raw keep-alive ping against `brain serve`
// on the 7,500-page brain: those lines were 0.6-0.9 ms of a 2.4-3.0 ms round trip
// (docs/performance.md, "The servers' request log").
//
// Now a request that went well is logged at debug (BRAIN_LOG_LEVEL=debug shows both lines as
// before); one the server refused (4xx) at info, with what was asked and the answer; failures
// stay at error. Sessions opened and closed are still logged at info (services/mcp/http.ts).
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

export class QuietRequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      reply.log.error({ res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
      return;
    }
    // The request line goes with a refusal: "incoming request" was not written at info.
    if (reply.statusCode >= 400) reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request refused');
    else reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
