"""Minimal WebSocket echo server: the baseline for tools/bench/server/run.sh.

Echoes every text message back unchanged (the client matches answers by correlationId,
which the echo carries), using the `websockets` package's asyncio server.
"""
import asyncio
import sys

import websockets


async def echo(ws):
    async for message in ws:
        await ws.send(message)


async def main(port: int) -> None:
    async with websockets.serve(echo, "127.0.0.1", port, compression=None, max_size=16 * 1024 * 1024):
        print(f"echo listening on {port}", flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
