// The chat page: useChat (@ai-sdk/react 4, ai 7) reads the UI message stream the llmbridge
// back-end writes (llmbridge.ui.ai_sdk.to_stream) and sends the whole history back each turn.
import { useState } from "react";
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport } from "ai";

const transport = new DefaultChatTransport({ api: "/api/chat" });

function ToolCall({ part }) {
  const name = part.type === "dynamic-tool" ? part.toolName : part.type.slice("tool-".length);
  return (
    <div className="tool" data-testid="tool-call" data-state={part.state}>
      <div className="tool-name">🔧 {name}</div>
      <pre className="tool-input" data-testid="tool-input">{JSON.stringify(part.input ?? null)}</pre>
      {part.state === "output-available" && (
        <pre className="tool-output" data-testid="tool-output">{JSON.stringify(part.output)}</pre>
      )}
      {part.state === "output-error" && (
        <pre className="tool-error" data-testid="tool-error">{part.errorText}</pre>
      )}
    </div>
  );
}

function Part({ part }) {
  if (part.type === "text") return <p className="text" data-testid="text">{part.text}</p>;
  if (part.type === "reasoning") return <p className="reasoning">{part.text}</p>;
  if (part.type === "source-url") return <a className="source" href={part.url}>{part.title ?? part.url}</a>;
  if (part.type.startsWith("tool-") || part.type === "dynamic-tool") return <ToolCall part={part} />;
  return null;
}

export function App() {
  const { messages, sendMessage, status, error } = useChat({ transport });
  const [input, setInput] = useState("");
  const busy = status === "submitted" || status === "streaming";
  function submit(event) {
    event.preventDefault();
    if (!input.trim() || busy) return;
    sendMessage({ text: input });
    setInput("");
  }
  return (
    <main>
      <h1>llmbridge chat</h1>
      <div className="messages">
        {messages.map((m) => (
          <div key={m.id} className={`message ${m.role}`} data-testid={`message-${m.role}`}>
            {m.parts.map((part, i) => <Part key={i} part={part} />)}
          </div>
        ))}
      </div>
      {error && <div className="error" data-testid="error">{error.message}</div>}
      <form onSubmit={submit}>
        <input
          id="prompt"
          value={input}
          placeholder="Ask about the weather…"
          onChange={(e) => setInput(e.target.value)}
          autoFocus
        />
        <button id="send" type="submit" disabled={busy}>Send</button>
      </form>
      <div className="status" data-testid="status" data-status={status}>{status}</div>
    </main>
  );
}
