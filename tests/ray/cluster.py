"""A Ray cluster of one node on 127.0.0.1 for the tests: started with ``ray start --head
--block`` as a subprocess, stopped by its process ids.

Every port is a free one, the session directory and the authentication token are
private, so the cluster meets no other cluster on the machine; a global ``ray stop`` would
also stop the clusters of others, so ``stop`` ends only this cluster's processes. A driver
joins with ``env`` in its environment (Ray's token authentication: an explicit address
never picks up the token of ``~/.ray/auth_token``).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

# Ray's options that bind a port, each given a free one.
PORT_OPTIONS = ("--port", "--node-manager-port", "--object-manager-port",
                "--ray-client-server-port", "--dashboard-agent-listen-port",
                "--dashboard-agent-grpc-port", "--metrics-export-port",
                "--runtime-env-agent-port")


def free_ports(n: int) -> list[int]:
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


class LocalCluster:
    """``with LocalCluster(num_cpus=2) as c:`` ... ``c.address`` is ``127.0.0.1:PORT``.

    Args:
        worker_niceness: Ray's ``worker_niceness`` (Ray's default 15; 0: the workers run
            at the niceness of the caller).
    """

    def __init__(self, num_cpus: int = 2, timeout: float = 120, worker_niceness: int = 15):
        self.num_cpus, self.timeout = num_cpus, timeout
        self.proc: subprocess.Popen | None = None
        self.address = ""
        self.env = {**{k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"},
                    "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32),
                    "RAY_worker_niceness": str(worker_niceness)}
        # short: Ray's socket paths under it must stay within the OS limit
        self.temp_dir = tempfile.mkdtemp(prefix="ray", dir="/tmp")

    def __enter__(self) -> LocalCluster:
        ports = free_ports(len(PORT_OPTIONS))
        self.address = f"127.0.0.1:{ports[0]}"
        ray = str(Path(sys.executable).with_name("ray"))
        cmd = [ray, "start", "--head", "--block", "--node-ip-address=127.0.0.1",
               f"--num-cpus={self.num_cpus}", "--include-dashboard=false",
               "--disable-usage-stats", f"--temp-dir={self.temp_dir}",
               *(f"{o}={p}" for o, p in zip(PORT_OPTIONS, ports, strict=True))]
        self.proc = subprocess.Popen(cmd, env=self.env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, start_new_session=True)
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.timeout
        host, port = self.address.split(":")
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"ray start exited: {self.proc.stderr.read().decode()}")
            # the raylet is the last process the head starts
            if any("raylet" in p.name() for p in self._processes()):
                with contextlib.suppress(OSError), socket.create_connection((host, int(port)), 1):
                    return
            time.sleep(0.5)
        raise TimeoutError(f"the Ray head at {self.address} did not start in {self.timeout} s")

    def _processes(self) -> list[psutil.Process]:
        try:
            return psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []

    def stop(self) -> None:
        """End the ``--block`` process and every process it started, by their ids."""
        if self.proc is None:
            return
        children = self._processes()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        _, alive = psutil.wait_procs(children, timeout=15)
        for p in alive:
            with contextlib.suppress(psutil.NoSuchProcess):
                p.kill()
        psutil.wait_procs(alive, timeout=10)
        self.proc.stderr.close()
        self.proc = None
        shutil.rmtree(self.temp_dir, ignore_errors=True)

    def __exit__(self, *exc) -> None:
        self.stop()
