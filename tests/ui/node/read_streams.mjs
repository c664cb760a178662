// Reads llmbridge's browser streams with the protocols' own reference code.
//
// stdin: a JSON list of cases {"name", "protocol": "ai-sdk" | "ag-ui", "body": "<the SSE text>"}.
// stdout: a JSON list of results {"name", "errors": [...], "message": ...}:
//   ai-sdk: every chunk checked with the `ai` package's uiMessageChunkSchema, then the UI message
//           rebuilt by its readUIMessageStream (the reader useChat uses);
//   ag-ui:  every event checked with @ag-ui/core's EventSchemas, the sequence with
//           @ag-ui/client's verifyEvents, and the messages rebuilt by its defaultApplyEvents.
import { readUIMessageStream, uiMessageChunkSchema } from "ai";
import { EventSchemas } from "@ag-ui/core/schemas";
import { defaultApplyEvents, verifyEvents } from "@ag-ui/client";
import { from, lastValueFrom, toArray } from "rxjs";

function sseData(body) {
  const out = [];
  for (const block of body.split("\n\n")) {
    if (!block.trim()) continue;
    const lines = block.split("\n").filter((l) => l.startsWith("data:"));
    out.push(lines.map((l) => l.slice(5).replace(/^ /, "")).join("\n"));
  }
  return out;
}

async function readAiSdk(body) {
  const errors = [];
  const datas = sseData(body);
  if (datas[datas.length - 1] !== "[DONE]") errors.push("stream does not end with [DONE]");
  const schema = uiMessageChunkSchema();
  const chunks = [];
  for (const data of datas) {
    if (data === "[DONE]") continue;
    const chunk = JSON.parse(data);
    const checked = await schema.validate(chunk);
    if (!checked.success) errors.push(`invalid chunk ${data}: ${String(checked.error).slice(0, 400)}`);
    chunks.push(chunk);
  }
  const stream = new ReadableStream({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });
  let message = null;
  const readerErrors = [];
  for await (const m of readUIMessageStream({ stream, onError: (e) => readerErrors.push(e.message) })) {
    message = m;
  }
  const streamErrors = chunks.filter((c) => c.type === "error").map((c) => c.errorText);
  // The reader reports each `error` chunk through onError; anything else is a real complaint.
  for (const e of readerErrors) if (!streamErrors.includes(e)) errors.push(`reader: ${e}`);
  return { errors, message, streamErrors, chunkTypes: chunks.map((c) => c.type) };
}

async function readAgUi(body) {
  const errors = [];
  const events = [];
  for (const data of sseData(body)) {
    const event = JSON.parse(data);
    const checked = EventSchemas.safeParse(event);
    if (!checked.success) errors.push(`invalid event ${data}: ${checked.error.message.slice(0, 400)}`);
    if (!Number.isInteger(event.timestamp)) errors.push(`timestamp not an integer: ${data}`);
    events.push(event);
  }
  try {
    await lastValueFrom(from(events).pipe(verifyEvents(false), toArray()));
  } catch (e) {
    errors.push(`verifyEvents: ${e.message}`);
  }
  const input = { threadId: "t", runId: "r", messages: [], tools: [], context: [] };
  let messages = [];
  try {
    const mutations = await lastValueFrom(
      defaultApplyEvents(input, from(events), { messages: [], state: {} }, []).pipe(toArray()),
    );
    for (const m of mutations) if (m.messages) messages = m.messages;
  } catch (e) {
    errors.push(`defaultApplyEvents: ${e.message}`);
  }
  return { errors, messages, eventTypes: events.map((e) => e.type) };
}

let input = "";
for await (const piece of process.stdin) input += piece;
const results = [];
for (const c of JSON.parse(input)) {
  const read = c.protocol === "ai-sdk" ? await readAiSdk(c.body) : await readAgUi(c.body);
  results.push({ name: c.name, ...read });
}
process.stdout.write(JSON.stringify(results));
