#!/usr/bin/env python3
"""A scripted chat server on 127.0.0.1 around a command: OpenAI's chat
completions format, or Anthropic's messages format for requests to
.../messages.

    fake_llm.py --script SCRIPT.json [--log LOG.jsonl] [--limit S] -- CMD...

Starts the server on a free loopback port, runs CMD with KOPT_LLM_BASE_URL
pointing at it, stops the server and exits with CMD's status (124 when CMD
outlives --limit seconds). Each POST gets the script's next entry:

  {"reply": FILE, "say": TEXT}   200, a completion whose text is FILE
                                 (relative to the script) in a ```cuda block
                                 and TEXT after it
  {"text": TEXT}                 200, a chat completion with TEXT as is
  {"status": N, "headers": {..}, "body": TEXT}   that response
  {"raw": TEXT}                  200 with TEXT as the body (not JSON)
  {"truncate": true}             a Content-Length longer than the body
  {"hang": S}                    no answer for S seconds, then the socket closes
  {"big_mb": N}                  200, a completion of N MB of prose, no code

After the script, every request gets a reply with no code. --log gets one
JSON line per request: path, headers and body.
"""
import argparse
import http.server
import json
import os
import subprocess
import sys
import threading
import time


def completion(text, anthropic=False):
    if anthropic:
        return json.dumps({
            "id": "fake", "type": "message", "role": "assistant",
            "model": "fake-model", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": 1000, "output_tokens": 100}})
    return json.dumps({
        "id": "fake", "object": "chat.completion", "model": "fake-model",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 100,
                  "total_tokens": 1100}})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--script", required=True)
    ap.add_argument("--log")
    ap.add_argument("--limit", type=float, default=600)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    base = os.path.dirname(os.path.abspath(a.script))
    script = json.load(open(a.script))
    lock = threading.Lock()
    state = {"next": 0}
    log = open(a.log, "w") if a.log else None

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, body, headers=None, length=None):
            data = body.encode() if isinstance(body, str) else body
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length",
                             str(len(data) if length is None else length))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()

        def do_POST(self):
            n = int(self.headers.get("Content-Length", 0))
            body = self.rfile.read(n).decode()
            with lock:
                i = state["next"]
                state["next"] += 1
                if log:
                    log.write(json.dumps({"path": self.path,
                                          "headers": dict(self.headers),
                                          "body": body}) + "\n")
                    log.flush()
            e = script[i] if i < len(script) else {"text": "No more ideas."}
            # Anthropic's messages API, else OpenAI's chat completions.
            completion_ = lambda t: completion(t, self.path.endswith("/messages"))
            if "reply" in e:
                code = open(os.path.join(base, e["reply"])).read()
                self.send(200, completion_("Here it is.\n```cuda\n" + code +
                                           "```\n" + e.get("say", "")))
            elif "text" in e:
                self.send(200, completion_(e["text"]))
            elif "status" in e:
                self.send(e["status"], e.get("body", "{}"), e.get("headers"))
                self.close_connection = True
            elif "raw" in e:
                self.send(200, e["raw"])
            elif e.get("truncate"):
                self.send(200, completion_("```cuda\n__global__")[:40],
                          length=5000)
                self.close_connection = True
            elif "hang" in e:
                time.sleep(e["hang"])
                self.close_connection = True
            elif "big_mb" in e:
                prose = "All of this is words. " * (e["big_mb"] * 50000)
                self.send(200, completion_(prose))

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = dict(os.environ)
    env["KOPT_LLM_BASE_URL"] = "http://127.0.0.1:%d/v1" % server.server_port
    try:
        rc = subprocess.run(cmd, env=env, timeout=a.limit).returncode
    except subprocess.TimeoutExpired:
        rc = 124
    server.shutdown()
    sys.exit(rc)


if __name__ == "__main__":
    main()
