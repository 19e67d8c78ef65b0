"""Build foreman's optional C core; without a compiler the install goes on with the pure-Python path."""

import os
import platform

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """Build the extension when a compiler works; otherwise say so and install without it."""

    def run(self):
        try:
            super().run()
        except Exception as e:  # noqa: BLE001 - any build failure leaves the pure path
            self._skip(e)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as e:  # noqa: BLE001
            self._skip(e)

    def _skip(self, e):
        print(f"foreman: the C core was not built ({e}); the pure-Python path will be used")


extra = ["-O3", "-std=c99"]  # -O3: the lane's scan is faster than at -O2 (docs/performance.md)


def cpu_info() -> dict[str, str]:
    """The first processor's fields in /proc/cpuinfo on an x86 machine; empty elsewhere."""
    if platform.machine() not in ("x86_64", "AMD64", "i686"):
        return {}
    try:
        with open("/proc/cpuinfo") as f:
            head = f.read().split("\n\n")[0]
    except OSError:
        return {}
    return {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in head.splitlines())}


def fast_pext(info: dict[str, str]) -> bool:
    """Whether BMI2's pext and pdep are single instructions here: AMD's family 23 (Zen 1 and 2)
    runs them in microcode, slower than the loop they replace."""
    return "bmi2" in info.get("flags", "").split() and not (
        info.get("vendor_id") == "AuthenticAMD" and info.get("cpu family") == "23")


info = cpu_info()
if "popcnt" in info.get("flags", "").split():  # the solver counts bits at every node; the core refuses to load without it
    extra.append("-mpopcnt")
if fast_pext(info):  # the solver packs ranks at every trick's start; the core refuses to load without it
    extra.append("-mbmi2")
if os.environ.get("FOREMAN_SANITIZE"):
    extra += ["-O1", "-g", "-fsanitize=address,undefined", "-fno-omit-frame-pointer"]

setup(
    ext_modules=[Extension("foreman_cli._core", ["foreman_cli/_core.c", "foreman_cli/_fmn.c"], extra_compile_args=extra,
                           extra_link_args=["-fsanitize=address,undefined"] if os.environ.get("FOREMAN_SANITIZE") else [],
                           optional=True)],
    cmdclass={"build_ext": OptionalBuildExt},
)
