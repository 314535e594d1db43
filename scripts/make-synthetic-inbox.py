#!/usr/bin/env python3
"""Write a git fast-import stream of a synthetic public-inbox v2 epoch, for scripts/bench-archive.sh.

    make-synthetic-inbox.py SLICE.git SYNTH_DIR TOTAL [ordinary] > stream

Every mail of the real slice SLICE.git once, as it is (its robot reports and their replies
included); the synthetic robot mails of SYNTH_DIR (`lkpx synth --mails`) once each; and, to reach
TOTAL messages, copies of the slice's ordinary mails (everything but its robot reports and the
replies quoting them) whose Message-ID, In-Reply-To and References are rewritten per copy, so that
each copy is a distinct message and threads stay inside their copy. Positions are a deterministic
shuffle. Each commit adds the mail as the blob `m`, as public-inbox does; its message is the
mail's subject. With `ordinary`, only copies of ordinary mail (the non-report path alone).
Prints, on stderr, the number of messages, reports and bytes.
"""

import os
import random
import re
import subprocess
import sys
import threading

ID = re.compile(rb"<([^<>\s]+)>")
THREAD_HEADERS = (b"message-id:", b"in-reply-to:", b"references:")


def slice_mails(repo):
    """Every `m` blob of the repository's master, oldest first."""
    revs = subprocess.run(
        ["git", "-C", repo, "rev-list", "--reverse", "master"], check=True, capture_output=True
    ).stdout.split()
    batch = subprocess.Popen(
        ["git", "-C", repo, "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    # Written from a thread: git's answers fill its output pipe long before the questions end.
    def ask():
        batch.stdin.write(b"".join(r + b":m\n" for r in revs))
        batch.stdin.close()

    writer = threading.Thread(target=ask)
    writer.start()
    mails = []
    for _ in revs:
        header = batch.stdout.readline().split()
        size = int(header[2])
        mails.append(batch.stdout.read(size))
        batch.stdout.read(1)
    writer.join()
    batch.wait()
    return mails


def split(mail):
    """(header block, body) at the first blank line."""
    for sep in (b"\r\n\r\n", b"\n\n"):
        i = mail.find(sep)
        if i >= 0:
            return mail[: i + len(sep)], mail[i + len(sep) :]
    return mail, b""


def is_report_or_reply(mail):
    """A robot report or a reply quoting one: a comparison-table header in the mail."""
    return b"%stddev" in mail or b"fail:runs" in mail


def rewrite_ids(mail, copy):
    """The mail with every id of its threading headers prefixed by `c<copy>.`."""
    head, body = split(mail)
    out = []
    in_thread = False
    for line in head.splitlines(keepends=True):
        if line[:1] not in (b" ", b"\t"):
            in_thread = line.lower().startswith(THREAD_HEADERS)
        if in_thread:
            line = ID.sub(lambda m: b"<c%d.%s>" % (copy, m.group(1)), line)
        out.append(line)
    return b"".join(out) + body


def subject(mail):
    head, _ = split(mail)
    m = re.search(rb"(?im)^subject:[ \t]*(.*(?:\r?\n[ \t].*)*)", head)
    s = m.group(1) if m else b"(no subject)"
    return re.sub(rb"\r?\n[ \t]+", b" ", s).strip() or b"(no subject)"


def emit(out, mails):
    t = 1_600_000_000
    for i, mail in enumerate(mails):
        msg = subject(mail) + b"\n"
        out.write(b"blob\nmark :%d\ndata %d\n" % (i + 1, len(mail)))
        out.write(mail)
        out.write(b"\ncommit refs/heads/master\n")
        out.write(b"author Synthetic <synthetic@example.org> %d +0000\n" % (t + i * 60))
        out.write(b"committer bench.example.org.0 <bench@example.org> %d +0000\n" % (t + i * 60))
        out.write(b"data %d\n" % len(msg))
        out.write(msg)
        out.write(b"M 100644 :%d m\n\n" % (i + 1))


def main():
    repo, synth_dir, total = sys.argv[1], sys.argv[2], int(sys.argv[3])
    real = slice_mails(repo)
    synth = []
    for name in sorted(os.listdir(synth_dir)):
        with open(os.path.join(synth_dir, name), "rb") as f:
            synth.append(f.read())
    ordinary = [m for m in real if not is_report_or_reply(m)]
    if sys.argv[4:] == ["ordinary"]:
        real, synth = [], []
    filler = []
    copy = 0
    while len(real) + len(synth) + len(filler) < total:
        copy += 1
        for m in ordinary:
            if len(real) + len(synth) + len(filler) >= total:
                break
            filler.append(rewrite_ids(m, copy))
    # The real slice keeps its own order (replies after their reports); the rest is shuffled in.
    rng = random.Random(20261203)
    others = synth + filler
    rng.shuffle(others)
    slots = sorted(rng.sample(range(len(real) + len(others)), len(real)))
    mails, oi, ri = [], 0, 0
    for pos in range(len(real) + len(others)):
        if ri < len(slots) and slots[ri] == pos:
            mails.append(real[ri])
            ri += 1
        else:
            mails.append(others[oi])
            oi += 1
    emit(sys.stdout.buffer, mails)
    reports = sum(1 for m in real if b"%stddev" in m and b"test robot" in split(m)[0].lower()) + len(synth)
    print(
        f"{len(mails)} messages ({len(real)} real, {len(synth)} synthetic reports, {len(filler)} copies of ordinary mail);"
        f" about {reports} robot mails with a table; {sum(map(len, mails))} bytes",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
