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


def has_popcnt() -> bool:
    """Whether this machine is an x86 one whose processor counts bits in one instruction."""
    if platform.machine() not in ("x86_64", "AMD64", "i686"):
        return False
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and " popcnt" in line for line in f)
    except OSError:
        return False


if has_popcnt():  # the solver counts bits at every node; the core refuses to load on a processor without it
    extra.append("-mpopcnt")
if os.environ.get("FOREMAN_SANITIZE"):
    extra += ["-O1", "-g", "-fsanitize=address,undefined", "-fno-omit-frame-pointer"]

setup(
    ext_modules=[Extension("foreman_cli._core", ["foreman_cli/_core.c", "foreman_cli/_fmn.c"], extra_compile_args=extra,
                           extra_link_args=["-fsanitize=address,undefined"] if os.environ.get("FOREMAN_SANITIZE") else [],
                           optional=True)],
    cmdclass={"build_ext": OptionalBuildExt},
)
