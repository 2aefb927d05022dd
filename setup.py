"""Builds `import nimtb`: the package python/nimtb/ (Python, with its type
stub and py.typed) and its C++ half nimtb._core, which links the C++ floors
(engine, io, service) that CMake builds, so setuptools hands the extension
to CMake and copies the module it makes. The build folder is the
project's own `build/` (tools/setup.sh's), so a package built after the
command costs one incremental build."""
import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = pathlib.Path(os.environ.get("NIMTB_BUILD_DIR", ROOT / "build"))
        if not (build / "CMakeCache.txt").exists():
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release"], check=True)
        jobs = str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", str(build), "--target", "nimtb_python", "-j", jobs], check=True)
        made = sorted((build / "python" / "nimtb").glob("_core*.so"))
        if not made:
            sys.exit(f"nimtb: CMake made no module in {build / 'python' / 'nimtb'}: is pybind11-dev installed?")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(made[-1], target)


setup(packages=["nimtb"], package_dir={"": "python"},
      package_data={"nimtb": ["py.typed", "*.pyi"]},
      ext_modules=[Extension("nimtb._core", sources=[])], cmdclass={"build_ext": CMakeBuild})
