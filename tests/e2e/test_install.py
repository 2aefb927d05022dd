"""`cmake --install` into an empty prefix, then the installed programs used as a user
would, from a copy of the prefix elsewhere: solve, query, serve the page, and under
mpirun hand the solve to the installed nimtb-mpi. They run where the build tree (and,
outside a sanitizer run, whose options name files of the source tree, the source tree)
is an empty folder: a mount namespace with a tmpfs over each (unshare -m, as root), so
that nothing can point back at them. NIMTB names the built binary; its build tree is
two folders up."""
import http.client
import os
import shlex
import shutil
import subprocess
import unittest

from test_cli import NIMTB, Workdir

BUILD = os.path.dirname(os.path.dirname(os.path.abspath(NIMTB)))
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MPIRUN = os.environ.get("MPIRUN", "")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
ENV["ASAN_OPTIONS"] = ENV.get("ASAN_OPTIONS", "") + ":detect_leaks=0"  # Open MPI's, as in test_mpi


def _can_hide():
    try:
        return subprocess.run(["unshare", "-m", "true"], capture_output=True, timeout=30).returncode == 0
    except OSError:
        return False


SANITIZER_OPTIONS = " ".join(os.environ.get(v, "") for v in ("ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS",
                                                             "UBSAN_OPTIONS"))
HIDDEN = ([BUILD] + ([SOURCE] if SOURCE not in SANITIZER_OPTIONS else [])) if _can_hide() else []


def hidden(cmd):
    """`cmd` run with the folders of HIDDEN empty (as it is where that cannot be done)."""
    if not HIDDEN:
        return cmd
    mounts = " && ".join(f"mount -t tmpfs nimtb-hidden {shlex.quote(d)}" for d in HIDDEN)
    return ["unshare", "-m", "sh", "-c", mounts + ' && exec "$@"', "sh", *cmd]


class Install(Workdir):
    def setUp(self):
        super().setUp()
        staged = self.path("staged")
        p = subprocess.run(["cmake", "--install", BUILD, "--prefix", staged],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        # Moved elsewhere after installing: an install that found its files by the
        # build tree's paths, or the prefix's, would fail here.
        self.prefix = self.path("moved")
        shutil.move(staged, self.prefix)
        self.nimtb = os.path.join(self.prefix, "bin", "nimtb")

    def installed(self, *args, env=None, timeout=300):
        p = subprocess.run(hidden([self.nimtb, *args]), capture_output=True, text=True,
                           cwd=self.path("."), env=env, timeout=timeout)
        return p.returncode, p.stdout, p.stderr

    @unittest.skipUnless(HIDDEN, "unshare -m needs root")
    def test_the_build_tree_is_hidden_from_the_installed_programs(self):
        p = subprocess.run(hidden(["sh", "-c", f"ls -A {shlex.quote(BUILD)} | wc -l"]),
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.stdout.strip(), "0", p.stderr)
        self.assertTrue(os.listdir(BUILD))  # outside the namespace it is still there

    def test_the_installed_programs_solve_query_and_serve(self):
        self.assertTrue(os.path.exists(os.path.join(self.prefix, "share", "doc", "nimtb", "docs", "SERVER.md")))
        code, _, err = self.installed("solve", "--preset", "default", "-o", "t.h5", "--quiet")
        self.assertEqual(code, 0, err)
        code, out, err = self.installed("query", "t.h5", "3 4 5")
        self.assertEqual(code, 0, err)
        self.assertIn("value", out)
        os.makedirs(self.path("tables"))
        shutil.copy(self.path("t.h5"), self.path("tables"))
        server = subprocess.Popen(hidden([self.nimtb, "serve", "--tables", self.path("tables"), "--port", "0"]),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            port = int(server.stdout.readline().split(" at ")[1].split()[0].rstrip("/").rsplit(":", 1)[1])
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", "/")
            r = conn.getresponse()
            page = r.read().decode()
            self.assertEqual(r.status, 200)
            self.assertIn("<html", page)
            conn.close()
        finally:
            server.terminate()
            server.communicate(timeout=10)

    def test_the_debian_package_holds_the_programs_and_they_solve(self):
        """`cpack -G DEB`: the package names its library dependencies (where dpkg-shlibdeps
        is installed) and its nimtb, unpacked anywhere, solves and queries."""
        out = self.path("deb")
        p = subprocess.run(["cpack", "-G", "DEB", "--config", os.path.join(BUILD, "CPackConfig.cmake"),
                            "-B", out], capture_output=True, text=True, timeout=600, cwd=self.path("."))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        debs = [f for f in os.listdir(out) if f.endswith(".deb")]
        self.assertEqual(len(debs), 1, os.listdir(out))
        deb = os.path.join(out, debs[0])
        if shutil.which("dpkg-shlibdeps"):
            depends = subprocess.run(["dpkg-deb", "-f", deb, "Depends"], capture_output=True, text=True).stdout
            self.assertIn("libtbb", depends)
        subprocess.run(["dpkg-deb", "-x", deb, self.path("root")], check=True, timeout=120)
        nimtb = os.path.join(self.path("root"), "usr", "bin", "nimtb")
        p = subprocess.run(hidden([nimtb, "solve", "--rules", "nim", "--heaps", "3", "--max-heap", "7", "-o",
                                   "d.h5", "--quiet"]), capture_output=True, text=True, cwd=self.path("."),
                           timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        p = subprocess.run(hidden([nimtb, "query", "d.h5", "1 2 3"]), capture_output=True, text=True,
                           cwd=self.path("."), timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("P-position", p.stdout)

    @unittest.skipUnless(MPIRUN and os.path.exists(os.path.join(BUILD, "apps", "nimtb-mpi")),
                         "a build without MPI")
    def test_under_mpirun_the_installed_nimtb_hands_the_solve_to_the_installed_nimtb_mpi(self):
        self.assertTrue(os.path.exists(os.path.join(self.prefix, "bin", "nimtb-mpi")))
        p = subprocess.run(hidden([MPIRUN, "--oversubscribe", "-np", "2", self.nimtb, "solve", "--rules", "nim",
                                   "--heaps", "3", "--max-heap", "15", "-o", self.path("mpi.h5")]),
                           capture_output=True, text=True, env=ENV, timeout=300, cwd=self.path("."))
        self.assertEqual(p.returncode, 0, p.stderr)
        code, _, err = self.installed("solve", "--rules", "nim", "--heaps", "3", "--max-heap", "15",
                                      "-o", "one.h5", "--quiet")
        self.assertEqual(code, 0, err)
        # The same table, bit for bit in its data, as one process writes it.
        one = subprocess.run(["h5dump", "-d", "/value", self.path("one.h5")], capture_output=True, text=True)
        two = subprocess.run(["h5dump", "-d", "/value", self.path("mpi.h5")], capture_output=True, text=True)
        self.assertEqual(one.stdout.split("DATA", 1)[1], two.stdout.split("DATA", 1)[1])
        # Without nimtb-mpi beside it the installed nimtb refuses: it did look there.
        os.remove(os.path.join(self.prefix, "bin", "nimtb-mpi"))
        p = subprocess.run(hidden([MPIRUN, "--oversubscribe", "-np", "2", self.nimtb, "solve", "--rules", "nim",
                                   "--heaps", "3", "--max-heap", "15", "-o", self.path("gone.h5")]),
                           capture_output=True, text=True, env=ENV, timeout=300, cwd=self.path("."))
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("cannot solve under mpirun", p.stderr)


if __name__ == "__main__":
    unittest.main()
