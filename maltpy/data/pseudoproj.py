"""Pseudo-projective parsing (Nivre & Nilsson 2005): lift, mark the labels, lower again.

``projectivize`` makes a tree projective by lifting its non-projective arcs, one step at a
time, to the head's head (Nivre & Nilsson 2005, §2, the minimal projective transformation;
Kahane et al. 1998), and records each lift in the arc labels. ``deprojectivize`` is the
inverse transformation guided by those labels. An arc h → d is non-projective if a word between
h and d is not dominated by h (``tree.nonprojective_arcs``); arcs from the artificial root are
always projective.

The label encodings are MaltParser's ``marking_strategy`` values, in MaltParser's syntax so that
files move between the two tools (d is the arc's own label, h the label of its syntactic head):

    ==========  ====================  ===================================================
    encoding    lifted arc            other marks
    ==========  ====================  ===================================================
    none        (nothing is lifted)
    baseline    d                     none: the lifts are not recorded
    head        d|h                   (Nivre & Nilsson's Head)
    path        d|  (d|% if also on   d% on each arc the lifted arc passed through (its
                a path)               syntactic head's arc and those above it)
    head+path   d|h  (d|h%)           d% as for path
    ==========  ====================  ===================================================

``covered_root`` handles words attached to the root that lie inside the span of a non-root arc
(such a word makes the arc non-projective and cannot be lifted past): ``left``, ``right`` and
``head`` attach it to the arc's left word, right word or head and mark it ``d|null``; ``ignore``
attaches it there only while lifting, then puts it back on the root unmarked.

Where the paper leaves a choice open, this module makes MaltParser 1.9.2's: the smallest arc is
chosen by its length in the original tree (ties to the leftmost dependent), the deepest by its
dependent's depth now (ties to the leftmost); lowering visits the tree top-down (left
dependents left to right, then right dependents right to left), searches below the lifted
arc's current head breadth-first, nearest to the lifted word first, and tries a subtree twice
when a lift in it could not be placed (once only after the sentence's first 10,000 visits).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections import deque
from dataclasses import dataclass
from heapq import heapify, heappop, heappush

from ..errors import MaltpyError
from .conll import DEPREL, Sentence, valid_label
from .tree import depths, nonprojective_arcs

MARKING_STRATEGIES = ("none", "baseline", "head", "path", "head+path")
COVERED_ROOTS = ("none", "ignore", "left", "right", "head")
LIFTING_ORDERS = ("shortest", "deepest")
#: The encodings that write marks into the labels.
MARKING = ("head", "path", "head+path")
#: The characters the label syntax gives a meaning.
MARK_CHARACTERS = "|%"
COVERED_MARK = "|null"
#: The number of visits after which lowering tries each subtree once only (MaltParser's bound).
RETRY_VISITS = 10_000


@dataclass(frozen=True, slots=True)
class Encoding:
    """A pseudo-projective setting: MaltParser's ``-pp``, ``-pcr`` and ``-plo``."""

    marking_strategy: str = "none"
    covered_root: str = "none"
    lifting_order: str = "shortest"

    def __post_init__(self) -> None:
        for value, allowed in ((self.marking_strategy, MARKING_STRATEGIES), (self.covered_root, COVERED_ROOTS),
                               (self.lifting_order, LIFTING_ORDERS)):  # fmt: skip
            if value not in allowed:
                raise ValueError(f"{value!r} is not one of {', '.join(allowed)}")

    @property
    def active(self) -> bool:
        """Whether the setting changes anything (MaltParser's pseudo-projective switch)."""
        return self.marking_strategy != "none" or self.covered_root != "none"

    @property
    def marks_covered_roots(self) -> bool:
        """Whether covered roots are attached for good and marked ``|null``."""
        return self.covered_root in ("left", "right", "head")

    @property
    def marks_labels(self) -> bool:
        """Whether projectivized labels carry marks that deprojectivizing reads."""
        return self.marking_strategy in MARKING or self.marks_covered_roots


@dataclass(slots=True)
class Lifted:
    """A projectivized tree: ``heads`` and ``labels`` (index 0 the root, as in ``tree``) and
    the number of arcs lifted (each by one or more steps)."""

    heads: list[int]
    labels: list[str]
    lifted: int


def projectivize(heads: list[int], labels: list[str], encoding: Encoding) -> Lifted:
    """Lift non-projective arcs until the tree is projective, and mark the labels.

    Each step lifts the first non-projective arc h → d in the lifting order to h's head (LIFT
    in Nivre & Nilsson 2005, §2) and records h as the arc's syntactic head (the first time) and
    h's arc as part of a path. A step changes the projectivity of few arcs, so the arcs are not
    all tested again: lifting d takes d's subtree out of the words h dominates, which can make
    only h's other arcs non-projective (those over a word of the subtree), and the lifted arc
    is new; attaching a covered root makes words dominated, which can only make arcs
    projective. So the non-projective arcs wait in a heap in the lifting order, each tested
    again when it comes out (``_Tree.projective``), and a step costs about what the arcs it
    touches span, not the sentence's length.
    """
    lifting = _Lifting(heads, encoding)
    lifting.run()
    return Lifted(lifting.heads, _decorate(labels, encoding, lifting.lifted, lifting.syntactic_head, lifting.on_path,
                                           lifting.covered), sum(lifting.lifted))  # fmt: skip


class _Lifting:
    """One tree's lifting (``projectivize``): the tree as it is changed, what each word's arc
    has gone through, and the non-projective arcs waiting in the lifting order."""

    def __init__(self, heads: list[int], encoding: Encoding) -> None:
        n = self.n = len(heads) - 1
        self.tree = _Tree(list(heads))
        self.heads = self.tree.heads
        self.encoding = encoding
        self.lifted = [False] * (n + 1)
        self.syntactic_head = [0] * (n + 1)
        self.on_path = [False] * (n + 1)
        self.covered = [False] * (n + 1)
        self.length = [0] + [abs(d - heads[d]) for d in range(1, n + 1)]
        self.deepest = encoding.lifting_order == "deepest"
        self.waiting: list[tuple[int, int]] = []  # (place in the lifting order, dependent): a heap
        self.queued = [False] * (n + 1)  # put in the heap once (a deepest arc whose place may move up)

    def run(self) -> None:
        encoding, n = self.encoding, self.n
        covered_root = encoding.covered_root
        if encoding.marks_covered_roots:
            for d in range(1, n + 1):
                self.attach_covered_roots(d)
        if encoding.marking_strategy == "none":
            return
        for d in nonprojective_arcs(self.heads):
            self.wait(d)
        waiting = self.waiting
        while waiting:
            then, d = heappop(waiting)
            now = self.place(d)
            if then != now:  # moved: later (it waits again) or earlier (it waits there already)
                if now > then:
                    heappush(waiting, (now, d))
                continue
            if self.tree.projective(d):
                continue
            if covered_root == "ignore" and self.attach_covered_roots(d):
                self.wait(d)
            else:
                self.lift(d)
        if covered_root == "ignore":
            for i in range(1, n + 1):
                if self.covered[i]:
                    self.heads[i] = 0

    def place(self, d: int) -> int:
        """The arc's place in the lifting order, ties to the leftmost dependent: the shortest
        in the original tree first, or the deepest dependent now first."""
        return -self.tree.depth[d] if self.deepest else self.length[d]

    def wait(self, d: int) -> None:
        heappush(self.waiting, (self.place(d), d))
        self.queued[d] = True

    def lift(self, d: int) -> None:
        """LIFT(h → d): d goes under h's head (Nivre & Nilsson 2005, §2)."""
        heads, tree = self.heads, self.tree
        self.lifted[d] = True
        h = heads[d]
        if not self.syntactic_head[d]:
            self.syntactic_head[d] = h
        self.on_path[h] = True
        moved = sorted(tree.move(d, heads[h]))
        for x in tree.children[h]:  # h's arcs over a word h no longer dominates
            lo, hi = (h, x) if h < x else (x, h)
            k = bisect_right(moved, lo)
            if k < len(moved) and moved[k] < hi:
                self.wait(x)
        self.wait(d)

    def attach_covered_roots(self, d: int) -> bool:
        """Attach each word on the root inside the span of h → d whose subtree lies strictly
        inside the span too (MaltParser's covered roots); True if there was one."""
        h = self.heads[d]
        if h == 0:
            return False
        lo, hi = min(h, d), max(h, d)
        covered_root, tree = self.encoding.covered_root, self.tree
        found = False
        for i in tree.roots_between(lo, hi):
            if self.lifted[i] or not tree.inside(i, lo, hi):
                continue
            deeper = tree.move(i, lo if covered_root == "left" else hi if covered_root == "right" else h)
            self.covered[i] = found = True
            for x in deeper if self.deepest else ():  # their arcs come earlier now
                if self.queued[x]:
                    self.wait(x)
            self.wait(i)
        return found


class _Tree:
    """A tree changed by moving subtrees under other heads, with what ``projectivize`` asks of
    it at each step: each node's dependents and depth, the words on the root in order, and
    whether an arc is projective now."""

    def __init__(self, heads: list[int]) -> None:
        self.heads = heads
        self.children: list[set[int]] = [set() for _ in heads]
        for d in range(1, len(heads)):
            self.children[heads[d]].add(d)
        self.depth = depths(heads)
        self.roots = sorted(self.children[0])

    def move(self, d: int, head: int) -> list[int]:
        """Attach d to ``head``; the nodes of d's subtree, whose depth has changed."""
        old = self.heads[d]
        self.children[old].discard(d)
        self.children[head].add(d)
        self.heads[d] = head
        if old == 0:
            self.roots.remove(d)
        elif head == 0:
            insort(self.roots, d)
        change = self.depth[head] + 1 - self.depth[d]
        words, todo = [], [d]
        while todo:
            x = todo.pop()
            words.append(x)
            self.depth[x] += change
            todo.extend(self.children[x])
        return words

    def roots_between(self, lo: int, hi: int) -> list[int]:
        """The words on the root strictly between lo and hi, in order."""
        return self.roots[bisect_right(self.roots, lo) : bisect_left(self.roots, hi)]

    def inside(self, node: int, lo: int, hi: int) -> bool:
        """Does node's subtree lie strictly between lo and hi? The walk stops at the first word
        outside, so it visits no more than the words between."""
        todo = [node]
        while todo:
            x = todo.pop()
            if not lo < x < hi:
                return False
            todo.extend(self.children[x])
        return True

    def projective(self, d: int) -> bool:
        """Is every word between heads[d] and d dominated by heads[d] (Nivre 2008, §2)? A word is
        when the walk up its heads to the head's depth ends at the head; the walks share their
        ends, so each node on them is visited once."""
        heads, depth = self.heads, self.depth
        h = heads[d]
        if h == 0:
            return True
        lo, hi = (h, d) if h < d else (d, h)
        top = depth[h]
        known: dict[int, bool] = {}
        for k in range(lo + 1, hi):
            path = []
            while depth[k] > top and k not in known:
                path.append(k)
                k = heads[k]
            dominated = known[k] if k in known else k == h
            for x in path:
                known[x] = dominated
            if not dominated:
                return False
        return True


def _decorate(labels, encoding, lifted, syntactic_head, on_path, covered) -> list[str]:
    """The labels with the encoding's marks (MaltParser's merged arc labels)."""
    strategy = encoding.marking_strategy
    out = list(labels)
    for d in range(1, len(labels)):
        if covered[d]:
            if encoding.marks_covered_roots:
                out[d] = labels[d] + COVERED_MARK
            continue
        lift = path = ""
        if lifted[d] and strategy in MARKING:
            lift = "|" if strategy == "path" else f"|{labels[syntactic_head[d]]}"
        if on_path[d] and strategy in ("path", "head+path"):
            path = "%"
        out[d] = labels[d] + lift + path
    return out


@dataclass(slots=True)
class Marks:
    """What an encoded label says: the arc's own label, the lift (the syntactic head's label,
    or True for an unlabelled lift, or None), whether the arc is on a path, and whether the word
    is a covered root."""

    deprel: str
    lifted: str | bool | None = None
    path: bool = False
    covered: bool = False


def read_marks(label: str, encoding: Encoding) -> Marks:
    """Split an encoded label as MaltParser does: ``%`` and what follows, then ``|`` and what
    follows (the syntactic head's label) unless it is ``|null``, then ``|null`` (a covered
    root). Only the marks the encoding writes are read; other labels are left whole.

    An encoded label is d|h, d| or d%, d the arc's own dependency relation (Nivre & Nilsson
    2005, §2), which is never empty: a label whose part before its marks is not a label CoNLL
    can hold (``|``, ``%``, ``|x``, ``%|null``, ``a |b``) encodes no arc and is left whole, so
    that deprojectivizing never writes an empty or blank-edged DEPREL."""
    marks = Marks(label)
    own = label
    if encoding.marking_strategy in MARKING:
        cut = own.find("%")
        if cut != -1:
            own, marks.path = own[:cut], True
        cut = own.find("|")
        if cut != -1 and COVERED_MARK not in own:
            marks.lifted = own[cut + 1 :] or True
            own = own[:cut]
    if encoding.marks_covered_roots:
        cut = own.find(COVERED_MARK)
        if cut != -1:
            own, marks.covered = own[:cut], True
    if not valid_label(own):
        return Marks(label)
    marks.deprel = own
    return marks


class DeprelOf(dict):
    """Encoded label -> its DEPREL, filled in as labels are met: what a DEPREL feature sees of
    a pseudo-projective arc (MaltParser keeps the marks in columns of their own, PPLIFTED, PPPATH
    and PPCOVERED, that DEPREL features do not read)."""

    def __init__(self, encoding: Encoding) -> None:
        super().__init__()
        self.encoding = encoding

    def __missing__(self, label: str) -> str:
        deprel = self[label] = read_marks(label, self.encoding).deprel
        return deprel


def deprojectivize(heads: list[int], labels: list[str], encoding: Encoding) -> tuple[list[int], list[str]]:
    """Lower every lifted arc to the node its label names, and take the marks off the labels.

    Covered roots go back to the root. Then the tree is visited top-down; a lifted word is
    attached to the first node found breadth-first below its current head (not below the word
    itself), nearest to the word first, that the encoding's search accepts:

    - head: a node whose label is the syntactic head's label;
    - path: following only arcs marked as path, a node with no such arc below it;
    - head+path: following path arcs, such a node with the syntactic head's label, else the
      first path node with that label.

    An arc whose node is not found stays where it is. The new head never lies below the word,
    so the result is a tree.
    """
    n = len(heads) - 1
    heads = list(heads)
    marks = [Marks(labels[0])] + [read_marks(labels[d], encoding) for d in range(1, n + 1)]
    for d in range(1, n + 1):
        if marks[d].covered:
            heads[d] = 0
    lifted = [m.lifted is not None for m in marks]
    if any(lifted):
        _lower(heads, marks, lifted, encoding.marking_strategy)
    return heads, [m.deprel for m in marks]


def _lower(heads: list[int], marks: list[Marks], lifted: list[bool], strategy: str) -> None:
    """MaltParser's top-down lowering (deprojectivizeWithHead/Path/HeadAndPath), without recursion."""
    _Lowering(heads, marks, lifted, strategy).run()


class _Lowering:
    """One tree's lowering (``_lower``): the tree as it is changed, with each node's dependents
    in word order, and the count of moves and visits MaltParser's retries depend on."""

    def __init__(self, heads: list[int], marks: list[Marks], lifted: list[bool], strategy: str) -> None:
        n = len(heads) - 1
        self.heads, self.marks, self.lifted, self.strategy = heads, marks, lifted, strategy
        self.dependents: list[list[int]] = [[] for _ in range(n + 1)]
        for d in range(1, n + 1):
            self.dependents[heads[d]].append(d)
        self.path = [m.path for m in marks]
        self.deprel = [m.deprel for m in marks]
        self.moves = self.visits = 0

    def run(self) -> None:
        """Visit the tree top-down, depth first, with MaltParser's retries of a node's children."""
        frames = [self.visit(0)]
        returned = None
        while frames:
            frame = frames[-1]
            if returned is not None:
                frame.children_placed = frame.children_placed and returned
                returned = None
            if frame.children is not None and frame.next < len(frame.children):
                frame.next += 1
                frames.append(self.visit(frame.children[frame.next - 1]))
                continue
            if frame.children is not None:  # a try over the children is over
                frame.tries -= 1
                # Another try changes nothing if this one moved nothing; past RETRY_VISITS the
                # visits it would count no longer matter, so it is skipped (MaltParser makes it).
                futile = self.moves == frame.moves_before and self.visits >= RETRY_VISITS
                if frame.children_placed or frame.tries == 0 or futile:
                    frames.pop()
                    returned = frame.children_placed and frame.placed
                    continue
            node = frame.node
            left = [x for x in self.dependents[node] if x < node]
            right = [x for x in self.dependents[node] if x > node]
            frame.children, frame.next, frame.children_placed = left + right[::-1], 0, True
            frame.moves_before = self.moves

    def nearest_first(self, governor: int, avoid: int, path_only: bool) -> list[int]:
        """governor's dependents except ``avoid``, nearest to ``avoid`` first, ties in the order
        MaltParser's selection sort over the dependents in word order leaves them: step i takes
        the first nearest of places i.. and swaps it with place i (a heap of (distance, place)
        does the same in n log n)."""
        deps = list(self.dependents[governor])
        heap = [(abs(x - avoid), i) for i, x in enumerate(deps)]
        heapify(heap)
        at = list(range(len(deps)))  # at[i]: the place whose dependent now sits at place i
        out = []
        for i in range(len(deps)):
            place = heappop(heap)[1]
            while place < i:  # an entry left behind by a dependent that has moved on
                place = heappop(heap)[1]
            x = deps[at[place]]
            out.append(x)
            if place != i:  # the dependent at place i moves to the chosen place
                at[place] = at[i]
                heappush(heap, (abs(deps[at[i]] - avoid), place))
            at[i] = -1
        path = self.path
        return [x for x in out if x != avoid and (not path_only or path[x])]

    def search(self, word: int) -> int | None:
        """The head a lifted word goes back under: breadth first below its head, guided by the
        encoding's marks (Nivre & Nilsson 2005's inverse transformation, as MaltParser runs it)."""
        wanted, deprel, strategy = self.marks[word].lifted, self.deprel, self.strategy
        start = self.heads[word]
        if strategy == "head":
            queue = deque(self.nearest_first(start, word, False))
            while queue:
                x = queue.popleft()
                if deprel[x] == wanted:
                    return x
                queue += self.nearest_first(x, word, False)
            return None
        queue = deque(self.nearest_first(start, word, True))
        second_chance = None
        while queue:
            x = queue.popleft()
            below = self.nearest_first(x, word, True)
            if not below and (strategy == "path" or deprel[x] == wanted):
                return x
            queue += below
            if strategy == "head+path" and second_chance is None and deprel[x] == wanted:
                second_chance = x
        return second_chance

    def move(self, word: int, head: int) -> None:
        heads, dependents = self.heads, self.dependents
        dependents[heads[word]].remove(word)
        insort(dependents[head], word)
        heads[word] = head
        self.moves += 1

    def visit(self, node: int) -> _Visit:
        """Enter a node: lower it if it is lifted."""
        tries = 2 if self.visits < RETRY_VISITS else 1
        self.visits += 1
        placed = True
        if self.lifted[node]:
            head = self.search(node)
            if head is None:
                placed = False
            else:
                self.move(node, head)
                self.lifted[node] = False
        return _Visit(node, tries, placed)


@dataclass(slots=True)
class _Visit:
    """A node on the way down: its tries left, whether it was placed, and the children of the
    current try (left dependents left to right, right dependents right to left)."""

    node: int
    tries: int
    placed: bool
    children: list[int] | None = None
    next: int = 0
    children_placed: bool = True
    moves_before: int = 0


def check_unmarked(sentence: Sentence, encoding: Encoding, name: str) -> None:
    """Refuse a gold label that already holds a character the encoding's marks use: its
    parses could not be told apart from a lifted arc's."""
    if not encoding.marks_labels:
        return
    for i, word in enumerate(sentence.words, 1):
        for ch in MARK_CHARACTERS:
            if ch in word[DEPREL]:
                raise MaltpyError(
                    f"DEPREL {word[DEPREL]!r} holds {ch!r}, which pseudo-projective labels use for their marks "
                    f"(pproj.marking_strategy {encoding.marking_strategy}, covered_root {encoding.covered_root})",
                    name, sentence.word_line(i),
                )  # fmt: skip
