"""The exceptions of nimtb, raised by its C++ half (nimtb._core) and by the
Python half alike. Each carries one line a user can act on."""

__all__ = ["InputError", "NotInTableError", "TableError", "TableNotFoundError", "TooLargeError"]


class InputError(ValueError):
    """Input nimtb cannot take: a rule text, a position, a bound, an option."""


class TooLargeError(InputError):
    """Work beyond nimtb's limits, whatever the machine: a box of more than
    64 heaps, a universe of more than 2^64 positions, a quotient past heap
    100000, a genus of more than 100 million positions. (Work that fits
    nimtb's limits but not this machine's memory is a MemoryError.)"""


class NotInTableError(InputError, KeyError):
    """A well-formed position outside a table's universe (a heap above its
    limit, too many heaps, too many tokens): a missing key, as
    python-chess's tablebases raise for a position they do not hold.
    ``Table.get`` returns a default instead."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class TableError(OSError):
    """A file that cannot be read or written: missing, damaged, foreign, in
    the way, closed."""


class TableNotFoundError(TableError, FileNotFoundError):
    """A table, sequence file or tablebase folder that is not there: a
    TableError, and the FileNotFoundError Python raises for a missing file."""
