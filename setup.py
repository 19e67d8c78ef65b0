"""Build foreman's optional C core; without a compiler the install goes on with the pure-Python path."""

import os

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
if os.environ.get("FOREMAN_SANITIZE"):
    extra += ["-O1", "-g", "-fsanitize=address,undefined", "-fno-omit-frame-pointer"]

setup(
    ext_modules=[Extension("foreman_cli._core", ["foreman_cli/_core.c", "foreman_cli/_fmn.c"], extra_compile_args=extra,
                           extra_link_args=["-fsanitize=address,undefined"] if os.environ.get("FOREMAN_SANITIZE") else [],
                           optional=True)],
    cmdclass={"build_ext": OptionalBuildExt},
)
