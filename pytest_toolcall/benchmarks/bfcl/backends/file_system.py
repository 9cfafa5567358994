"""GorillaFileSystem: the simulated shell-like file system of BFCL multi-turn.

Behaviour (return values, error texts, state) follows the official class at
ShishirPatil/gorilla@6ea5797. Two official quirks are kept on purpose because they change verdicts:
moving or copying a directory re-uses the children's dict (so the children keep their old parent
links and copies share file objects), and `cp` into a directory that already holds the name raises
instead of returning its "File exists" message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_toolcall.benchmarks.bfcl.backends.world import SharedWorld, long_context_value

# Characters a single file or directory name may not contain.
_FORBIDDEN_NAME_CHARS = '|/\\?%*:"><'


class File:
    """A file: compared by name and content only."""

    def __init__(self, name: str, content: str = "") -> None:
        self.name = name
        self.content = content

    def _write(self, new_content: str) -> None:
        self.content = new_content

    def _read(self) -> str:
        return self.content

    def __eq__(self, other: object) -> bool:
        return isinstance(other, File) and self.name == other.name and self.content == other.content

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<<File: {self.name}, Content: {self.content}>>"


class Directory:
    """A directory: compared by name and (recursively) contents; the parent link is not compared."""

    def __init__(self, name: str, parent: Directory | None = None) -> None:
        self.name = name
        self.parent = parent
        self.contents: dict[str, File | Directory] = {}

    def _add_file(self, file_name: str, content: str = "") -> None:
        if file_name in self.contents:
            raise ValueError(f"File '{file_name}' already exists in directory '{self.name}'.")
        self.contents[file_name] = File(file_name, content)

    def _add_directory(self, dir_name: str) -> None:
        if dir_name in self.contents:
            raise ValueError(f"Directory '{dir_name}' already exists in directory '{self.name}'.")
        self.contents[dir_name] = Directory(dir_name, self)

    def _get_item(self, item_name: str) -> File | Directory | None:
        return self if item_name == "." else self.contents.get(item_name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Directory) and self.name == other.name and self.contents == other.contents

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        parent = self.parent.name if self.parent else None
        return f"<Directory: {self.name}, Parent: {parent}, Contents: {self.contents}>"


def _valid_name(name: str) -> bool:
    return not any(char in name for char in _FORBIDDEN_NAME_CHARS)


class GorillaFileSystem:
    def __init__(self, world: SharedWorld | None = None) -> None:
        self._world = world or SharedWorld()
        self.root: Directory = Directory("/", None)
        self._current_dir: Directory = self.root

    def dispatch_table(self) -> dict[str, Callable[..., Any]]:
        return {
            "cat": self.cat, "cd": self.cd, "cp": self.cp, "diff": self.diff, "du": self.du, "echo": self.echo,
            "find": self.find, "grep": self.grep, "ls": self.ls, "mkdir": self.mkdir, "mv": self.mv,
            "pwd": self.pwd, "rm": self.rm, "rmdir": self.rmdir, "sort": self.sort, "tail": self.tail,
            "touch": self.touch, "wc": self.wc,
        }  # fmt: skip

    # -- scenario -------------------------------------------------------------------------------

    def _load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        self.long_context = long_context
        self.root = Directory("/", None)
        if "root" in scenario:
            root_name = next(iter(scenario["root"]))
            self.root = self._build(scenario["root"][root_name]["contents"], Directory(root_name, None))
        self._current_dir = self.root

    def _build(self, listing: dict, folder: Directory) -> Directory:
        has_subfolder = False
        for name, entry in listing.items():
            if entry["type"] == "directory":
                has_subfolder = True
                folder.contents[name] = self._build(entry["contents"], Directory(name, folder))
            elif entry["type"] == "file":
                content = entry["content"]
                # Long-context dialogues pad every file except the few whose tail the tasks read.
                if self.long_context and name not in long_context_value("FILES_TAIL_USED"):
                    content += long_context_value("FILE_CONTENT_EXTENSION")
                folder.contents[name] = File(name, content)
        if self.long_context and not has_subfolder:
            for filler in long_context_value("POPULATE_FILE_EXTENSION"):
                folder._add_file(filler)
        return folder

    def _resolve(self, path: str | None) -> Directory | dict[str, str]:
        """Walk a relative or absolute path of directories; an error dict in cd's wording otherwise."""
        if path is None or path == ".":
            return self._current_dir
        if path == "/":
            return self.root
        parts = path.strip("/").split("/")
        here = self.root if path.startswith("/") else self._current_dir
        for part in parts:
            step = here._get_item(part)
            if not isinstance(step, Directory):
                return {"error": f"cd: '{path}': No such file or directory"}
            here = step
        return here

    def _file_here(self, file_name: str) -> File | None:
        if file_name in self._current_dir.contents:
            item = self._current_dir._get_item(file_name)
            if isinstance(item, File):
                return item
        return None

    # -- tools ----------------------------------------------------------------------------------

    def pwd(self):
        # The official loop compares a name with the root object, which never matches: every
        # ancestor, the root's own name included, ends up in the path.
        names = []
        folder: Directory | None = self._current_dir
        while folder is not None:
            names.append(folder.name)
            folder = folder.parent
        return {"current_working_directory": "/" + "/".join(reversed(names))}

    def ls(self, a: bool = False) -> dict[str, list[str]]:
        names = list(self._current_dir.contents.keys())
        if not a:
            names = [name for name in names if not name.startswith(".")]
        return {"current_directory_content": names}

    def cd(self, folder: str) -> dict[str, str] | None:
        folder = folder.rstrip("/")
        if folder == "":
            folder = "/"
        if folder not in {".", "..", "/"} and "/" in folder:
            return {"error": f"cd: {folder}: Unsupported path. Only one folder level at a time is supported."}
        if folder == "..":
            if self._current_dir.parent:
                self._current_dir = self._current_dir.parent
                return {}
            if self.root == self._current_dir:
                return {"error": "Current directory is already the root. Cannot go back."}
            return {"error": "cd: ..: No such directory"}
        target = self._resolve(folder)
        if isinstance(target, dict):
            return target
        self._current_dir = target
        return {"current_working_directory": target.name}

    def mkdir(self, dir_name: str) -> dict[str, str] | None:
        if not _valid_name(dir_name):
            return {"error": f"mkdir: cannot create directory '{dir_name}': Invalid character"}
        if dir_name in self._current_dir.contents:
            return {"error": f"mkdir: cannot create directory '{dir_name}': File exists"}
        self._current_dir._add_directory(dir_name)
        return None

    def touch(self, file_name: str) -> dict[str, str] | None:
        if not _valid_name(file_name):
            return {"error": f"touch: cannot touch '{file_name}': Invalid character"}
        if file_name in self._current_dir.contents:
            return {"error": f"touch: cannot touch '{file_name}': File exists"}
        self._current_dir._add_file(file_name)
        return None

    def echo(self, content: str, file_name: str | None = None) -> dict[str, str] | None:
        if file_name is None:
            return {"terminal_output": content}
        if not _valid_name(file_name):
            return {"error": f"echo: cannot write to '{file_name}': Invalid character"}
        if not file_name:
            return {"terminal_output": content}
        if file_name not in self._current_dir.contents:
            return {"error": f"echo: cannot write to '{file_name}': No such file"}
        # A directory of that name has no `_write`: the official call fails with AttributeError.
        self._current_dir._get_item(file_name)._write(content)  # type: ignore[union-attr]
        return None

    def cat(self, file_name: str) -> dict[str, str]:
        if not _valid_name(file_name):
            return {"error": f"cat: '{file_name}': Invalid character"}
        if file_name not in self._current_dir.contents:
            return {"error": f"cat: '{file_name}': No such file or directory"}
        item = self._current_dir._get_item(file_name)
        if isinstance(item, File):
            return {"file_content": item._read()}
        return {"error": f"cat: '{file_name}': Is a directory"}

    def find(self, path: str = ".", name: str | None = None) -> dict[str, list[str] | str]:
        start = self._resolve(path)
        if isinstance(start, dict):
            message = start.get("error", "")
            if message.startswith("cd:"):
                return {"error": message.replace("cd:", "find:", 1)}
            return {"error": message}  # the resolver's only other answer
        matches: list[str] = []

        def walk(folder: Directory, prefix: str) -> None:
            for item_name, item in folder.contents.items():
                item_path = f"{prefix}/{item_name}"
                if name is None or name in item_name:
                    matches.append(item_path)
                if isinstance(item, Directory):
                    walk(item, item_path)

        walk(start, path.rstrip("/"))
        return {"matches": matches}

    def wc(self, file_name: str, mode: str = "l") -> dict[str, int | str]:
        if mode not in ["l", "w", "c"]:
            return {"error": f"wc: invalid mode '{mode}'"}
        found = self._file_here(file_name)
        if found is not None:
            text = found._read()
            if mode == "l":
                return {"count": len(text.splitlines()), "type": "lines"}
            if mode == "w":
                return {"count": len(text.split()), "type": "words"}
            return {"count": len(text), "type": "characters"}
        return {"error": f"wc: {file_name}: No such file or directory"}

    def sort(self, file_name: str) -> dict[str, str]:
        found = self._file_here(file_name)
        if found is not None:
            return {"sorted_content": "\n".join(sorted(found._read().splitlines()))}
        return {"error": f"sort: {file_name}: No such file or directory"}

    def grep(self, file_name: str, pattern: str) -> dict[str, list[str] | str]:
        found = self._file_here(file_name)
        if found is not None:
            return {"matching_lines": [line for line in found._read().splitlines() if pattern in line]}
        return {"error": f"grep: {file_name}: No such file or directory"}

    def du(self, human_readable: bool = False) -> dict[str, str]:
        def size_of(item: File | Directory) -> int:
            if isinstance(item, File):
                return len(item._read().encode("utf-8"))
            return sum(size_of(child) for child in item.contents.values())

        total: float = size_of(self._current_dir)
        if not human_readable:
            return {"disk_usage": f"{total} bytes"}
        for unit in ["B", "KB", "MB", "GB", "TB"]:
            if total < 1024:
                return {"disk_usage": f"{total:.2f} {unit}"}
            total /= 1024
        return {"disk_usage": f"{total:.2f} PB"}

    def tail(self, file_name: str, lines: int = 10) -> dict[str, str]:
        found = self._file_here(file_name)
        if found is not None:
            all_lines = found._read().splitlines()
            if lines > len(all_lines):
                lines = len(all_lines)
            return {"last_lines": "\n".join(all_lines[-lines:])}
        return {"error": f"tail: {file_name}: No such file or directory"}

    def diff(self, file_name1: str, file_name2: str) -> dict[str, str]:
        contents = self._current_dir.contents
        if file_name1 in contents and file_name2 in contents:
            first = self._current_dir._get_item(file_name1)
            second = self._current_dir._get_item(file_name2)
            if isinstance(first, File) and isinstance(second, File):
                pairs = zip(first._read().splitlines(), second._read().splitlines(), strict=False)
                changed = [f"- {left}\n+ {right}" for left, right in pairs if left != right]
                return {"diff_lines": "\n".join(changed)}
        return {"error": f"diff: {file_name1} or {file_name2}: No such file or directory"}

    def mv(self, source: str, destination: str) -> dict[str, str]:
        here = self._current_dir
        if source not in here.contents:
            return {"error": f"mv: cannot move '{source}': No such file or directory"}
        item = here._get_item(source)
        if "/" in destination:
            return {"error": "mv: path not allowed in destination. Provide only a file or directory name."}
        if destination in here.contents:
            target = here._get_item(destination)
            if not isinstance(target, Directory):
                return {"error": f"mv: cannot move '{source}' to '{destination}': Not a directory"}
            if source in target.contents:
                return {"error": f"mv: cannot move '{source}' to '{destination}/{source}': File exists"}
            here.contents.pop(source)
            self._place(target, source, item, share_children=True)
            return {"result": f"'{source}' moved to '{destination}/{source}'"}
        here.contents.pop(source)
        self._place(here, destination, item, share_children=True)
        return {"result": f"'{source}' moved to '{destination}'"}

    def rm(self, file_name: str) -> dict[str, str]:
        if file_name not in self._current_dir.contents:
            return {"error": f"rm: cannot remove '{file_name}': No such file or directory"}
        self._current_dir.contents.pop(file_name)
        return {"result": f"'{file_name}' removed"}

    def rmdir(self, dir_name: str) -> dict[str, str]:
        if dir_name not in self._current_dir.contents:
            return {"error": f"rmdir: cannot remove '{dir_name}': No such file or directory"}
        item = self._current_dir._get_item(dir_name)
        if not isinstance(item, Directory):
            return {"error": f"rmdir: cannot remove '{dir_name}': Not a directory"}
        if item.contents:
            return {"error": f"rmdir: cannot remove '{dir_name}': Directory not empty"}
        self._current_dir.contents.pop(dir_name)
        return {"result": f"'{dir_name}' removed"}

    def cp(self, source: str, destination: str) -> dict[str, str]:
        here = self._current_dir
        if source not in here.contents:
            return {"error": f"cp: cannot copy '{source}': No such file or directory"}
        item = here._get_item(source)
        if "/" in destination:
            return {"error": "cp: path not allowed in destination. Provide only a file or directory name."}
        if destination in here.contents:
            target = here._get_item(destination)
            if not isinstance(target, Directory):
                return {"error": f"cp: cannot copy '{source}' to '{destination}': Not a directory"}
            # The official existence test looks up "destination/source", which is never a key, so
            # an existing name reaches `_add_*` and raises ValueError.
            self._place(target, source, item, share_children=False)
            return {"result": f"'{source}' copied to '{destination}/{source}'"}
        self._place(here, destination, item, share_children=False)
        return {"result": f"'{source}' copied to '{destination}'"}

    @staticmethod
    def _place(folder: Directory, name: str, item: File | Directory | None, *, share_children: bool) -> None:
        """Put `item` under `name` in `folder`: files by content, directories by (shallow) contents."""
        if isinstance(item, File):
            folder._add_file(name, item.content)
            return
        folder._add_directory(name)
        children = item.contents if share_children else item.contents.copy()  # type: ignore[union-attr]
        folder.contents[name].contents = children  # type: ignore[union-attr]
