"""A real MCP client that kcamp did not write (the Python `mcp` SDK) driving `kcamp mcp`
on a campaign, configured as docs/agents.md says: `kcamp mcp -C CAMPAIGN` over stdio.

Used by tests/gpu/mcp.rs: `python mcp_client.py KCAMP CAMPAIGN` prints one JSON document,
the transcript of every call (arguments, the result's JSON, whether it was an error result,
the progress notifications, how long it took), and what a cancellation and a killed server
left behind; the Rust test judges it. Nothing here asserts: it records.

Five server sessions, in order:
1. the loop: a refusal, baseline, status, round 2 (a change, validate, rollback), round 3
   (the same change re-indented and re-commented: the ledger must name round 2; forced
   accept), round 4 (another change) whose validate is cancelled during its warm-up;
2. round 4's validate again, the server SIGKILLed during its warm-up;
3. status, round 4's validate after the kill;
4. accept of round 4 in a server that dies at the failpoint `accept:after_decision`;
5. accept again (the next call completes it), log, round 5 with a kernel tuned to the shape
   list (forced, then rolled back by the held-out check), a diff, report, resources and
   their templates.

Every answer is read from the result's structuredContent, never from its text.
"""

import json
import os
import signal
import sys
import time

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

KCAMP, CAMP = sys.argv[1], sys.argv[2]
KERNEL = os.path.join(CAMP, "kernel", "gemm.wgsl")
MANIFEST = os.path.join(CAMP, "manifest.yaml")
# The environment a client passes on: the adapter's driver, the runtime dir, the peak store.
PASSED = ("VK_DRIVER_FILES", "XDG_RUNTIME_DIR", "XDG_DATA_HOME", "GIT_DIR")
ENV = {k: os.environ[k] for k in PASSED if k in os.environ}

# A real change to the kernel (a function of its own), and the same change written
# otherwise: other whitespace, other comments.
CHANGE_A = "\nfn kcamp_scaled(x: f32) -> f32 {\n    return x * 2.0;\n}\n"
CHANGE_A_REWRITTEN = "\n// the same helper, reformatted\nfn kcamp_scaled( x : f32 ) -> f32\n{\n\treturn x*2.0; /* doubled */\n}\n"
CHANGE_B = "\nfn kcamp_halved(x: f32) -> f32 {\n    return x * 0.5;\n}\n"
# Right on every target shape, zeros elsewhere: the held-out check must roll it back.
SHAPE_TUNED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "kernels", "gemm_shape_tuned.wgsl")
# A warm-up this long holds a worker busy for as long as a cancellation or a kill takes.
LONG_WARMUP = "timing:\n  warmup_ms: 20000\n"

transcript = {"calls": [], "sessions": []}
original_kernel = open(KERNEL).read()
# The manifest as the BASELINE leaves it (with its representative shapes), to restore.
saved = {}


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def params(extra_env=None):
    return StdioServerParameters(
        command=KCAMP, args=["mcp", "-C", CAMP], env={**ENV, **(extra_env or {})}
    )


def children(pid):
    """Pids whose parent is `pid`, with their command lines."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            state = stat.rsplit(")", 1)[1].split()[0]
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid and state != "Z":
            out.append((int(entry), cmd))
    return out


def server_pid():
    found = [p for p, cmd in children(os.getpid()) if " mcp " in f"{cmd} "]
    return found[0] if found else None


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pids, limit=10.0):
    """Seconds until every pid is gone, or None if some outlive `limit`."""
    start = time.monotonic()
    while time.monotonic() - start < limit:
        if not any(alive(p) for p in pids):
            return time.monotonic() - start
        time.sleep(0.01)
    return None


async def call(session, name, args=None, on_note=None):
    notes = []

    async def progress(value, total, message):
        notes.append({"progress": value, "total": total, "message": message})
        if on_note is not None:
            on_note(message or "")

    start = time.monotonic()
    result = await session.call_tool(name, args or {}, progress_callback=progress)
    seconds = time.monotonic() - start
    # The document is the structured content; the text block only repeats it, as the
    # protocol asks of a server for clients that read no structured content.
    doc = result.structured_content if result.structured_content is not None else {"unstructured": True}
    text = result.content[0].text if result.content else ""
    try:
        text_is_doc = json.loads(text) == doc
    except ValueError:
        text_is_doc = False
    meta = result.meta if getattr(result, "meta", None) is not None else None
    entry = {
        "tool": name,
        "args": args or {},
        "is_error": result.is_error,
        "doc": doc,
        "structured_is_doc": text_is_doc,
        "seconds": round(seconds, 3),
        "progress": notes,
        "meta": meta,
    }
    transcript["calls"].append(entry)
    log(f"{name} {args or {}}: {'ERROR' if result.is_error else 'ok'} in {seconds:.2f} s")
    return entry


async def session_one():
    async with stdio_client(params()) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            transcript["server"] = {
                "name": init.server_info.name,
                "protocol": init.protocol_version,
                "instructions": init.instructions,
            }
            tools = await session.list_tools()
            transcript["tools"] = {t.name: t.input_schema for t in tools.tools}
            # A refusal: no round before the BASELINE.
            await call(session, "round_new", {"hypothesis": "too early"})
            await call(session, "baseline", {"no_peak": True})
            await call(session, "status")
            await call(session, "round_new", {"hypothesis": "a helper of its own"})
            with open(KERNEL, "a") as f:
                f.write(CHANGE_A)
            await call(session, "validate")
            await call(session, "rollback", {"reason": "no gain from the helper"})
            await call(session, "round_new", {"hypothesis": "the helper again, tidied"})
            with open(KERNEL, "a") as f:
                f.write(CHANGE_A_REWRITTEN)
            await call(session, "status")
            await call(session, "validate")
            # Another refusal: force without a reason.
            await call(session, "accept", {"force": True})
            await call(session, "accept", {"force": True, "reason": "the test accepts whatever the noise says"})
            await call(session, "round_new", {"hypothesis": "a second helper"})
            with open(KERNEL, "w") as f:
                f.write(original_kernel + CHANGE_A + CHANGE_B)
            saved["manifest"] = open(MANIFEST).read()
            with open(MANIFEST, "w") as f:
                f.write(saved["manifest"].replace("timing:\n", LONG_WARMUP, 1))
            transcript["cancel"] = await cancel_during_warmup(session)
            await call(session, "status")
            resources = await session.list_resources()
            transcript["resources"] = [str(r.uri) for r in resources.resources]
            manifest = await session.read_resource("kcamp://manifest.yaml")
            transcript["manifest_resource"] = manifest.contents[0].text
    transcript["sessions"].append("loop, cancel")


async def cancel_during_warmup(session):
    warming = anyio.Event()
    server = server_pid()
    seen = {}

    def on_note(message):
        if "warming up" in message and not warming.is_set():
            seen["workers"] = [p for p, cmd in children(server) if "__worker" in cmd]
            seen["message"] = message
            warming.set()

    async with anyio.create_task_group() as tg:
        scope = anyio.CancelScope()

        async def run():
            with scope:
                await call(session, "validate", {}, on_note)
                seen["finished"] = True

        tg.start_soon(run)
        with anyio.fail_after(120):
            await warming.wait()
        cancelled_at = time.monotonic()
        scope.cancel()
    gone = await anyio.to_thread.run_sync(wait_gone, seen.get("workers", []))
    return {
        "server": server,
        "workers": seen.get("workers", []),
        "while": seen.get("message"),
        "finished_anyway": seen.get("finished", False),
        "workers_gone_after_s": gone,
        "server_alive": alive(server),
        "cancel_to_return_s": round(time.monotonic() - cancelled_at, 3),
    }


async def session_two_killed():
    """Round 4's validate again; the server is SIGKILLed in its warm-up."""
    record = {}
    try:
        async with stdio_client(params()) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                server = server_pid()
                killed = anyio.Event()

                def on_note(message):
                    if "warming up" in message and not killed.is_set():
                        record["server"] = server
                        record["workers"] = [p for p, cmd in children(server) if "__worker" in cmd]
                        record["while"] = message
                        os.kill(server, signal.SIGKILL)
                        killed.set()

                with anyio.move_on_after(120):
                    try:
                        await call(session, "validate", {}, on_note)
                        record["finished_anyway"] = True
                    except Exception as e:  # the connection dies with the server
                        record["call_error"] = type(e).__name__
    except BaseException as e:  # noqa: BLE001 - the transport may fail on exit too
        record["session_error"] = type(e).__name__
    record["workers_gone_after_s"] = wait_gone(record.get("workers", []))
    record["server_alive"] = alive(record.get("server", 0))
    transcript["kill"] = record
    transcript["sessions"].append("killed mid-validate")


async def session_three():
    with open(MANIFEST, "w") as f:
        f.write(saved["manifest"])
    async with stdio_client(params()) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await call(session, "status")
            await call(session, "validate")
    transcript["sessions"].append("validate after the kill")


async def session_four_failpoint():
    record = {}
    try:
        async with stdio_client(params({"KCAMP_FAILPOINT": "accept:after_decision"})) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                try:
                    with anyio.fail_after(120):
                        await call(session, "accept", {"force": True, "reason": "the test accepts whatever the noise says"})
                    record["finished_anyway"] = True
                except Exception as e:  # noqa: BLE001
                    record["call_error"] = type(e).__name__
    except BaseException as e:  # noqa: BLE001
        record["session_error"] = type(e).__name__
    transcript["failpoint"] = record
    transcript["sessions"].append("died in accept")


async def session_five():
    async with stdio_client(params()) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await call(session, "accept", {"force": True, "reason": "the test accepts whatever the noise says"})
            await call(session, "log")
            # Round 5: a kernel right only on the listed shapes. Forced past the gate, the
            # held-out check rolls it back; the ledger says so as data.
            await call(session, "round_new", {"hypothesis": "special-case the listed shapes"})
            with open(SHAPE_TUNED) as f:
                # Tuned to this campaign's dimensions instead of the fixture's own.
                tuned = f.read().replace(
                    "return d == 32u || d == 64u || d == 96u;",
                    "return d == 8u || d == 16u || d == 24u || d == 32u || d == 40u || d == 48u || d == 64u;",
                )
            with open(KERNEL, "w") as f:
                f.write(tuned)
            await call(session, "diff")
            await call(session, "validate")
            await call(session, "accept", {"force": True, "reason": "the gate is wrong"})
            await call(session, "status")
            await call(session, "diff", {"from": "r4", "to": "r5"})
            await call(session, "report")
            templates = await session.list_resource_templates()
            transcript["templates"] = [t.uri_template for t in templates.resource_templates]
            read = {}
            snapshot = next(t for t in transcript["templates"] if t.endswith("/kernel/{path}") and "rounds" in t)
            snapshot_5 = snapshot.replace("{n}", "5").replace("{path}", "gemm.wgsl")
            for uri in ["kcamp://report.md", "kcamp://rounds/2/decision.json", "kcamp://kernel/gemm.wgsl", snapshot_5, "kcamp://rounds/5/held_out.json"]:
                r = await session.read_resource(uri)
                read[uri] = r.contents[0].text
            transcript["read"] = read
            transcript["snapshot_uri"] = snapshot_5
    transcript["sessions"].append("accept completed, log, report")


async def main():
    for phase in (session_one, session_two_killed, session_three, session_four_failpoint, session_five):
        start = time.monotonic()
        await phase()
        log(f"{phase.__name__}: {time.monotonic() - start:.1f} s")


anyio.run(main)
print(json.dumps(transcript))
