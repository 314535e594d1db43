#!/usr/bin/env python3
"""Writes fixtures/replies/: human replies to a real robot report (fixtures/corpus/041.txt) in the shapes
real mail clients give them, to test that a quoted copy of a table is never a row's source and never an error.

Each reply quotes the report's text (its table included) through a client that:
- quoted-nbsp-depth3.eml: is three replies deep (`>>> `) and turned every other space into U+00A0, sent as 8bit UTF-8;
- quoted-tabs-wrapped-depth2.eml: is two deep (`> > `), turned runs of spaces into tabs and re-wrapped lines at 72
  columns (a row's name goes onto the next line);
- quoted-qp-depth1.eml: is one deep (`> `), sent quoted-printable with U+00A0 as `=C2=A0` and soft line breaks,
  and names the report in neither In-Reply-To nor References (only its quoted rows tell which report it answers);
- orphan-reply.eml: like the first, but answers another report (fixtures/corpus/043.txt), to import without it.

Run from the project root: `python3 scripts/make-reply-fixtures.py` (deterministic: the same bytes every time).
"""
import quopri
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "fixtures/corpus/041.txt"
OUT = ROOT / "fixtures/replies"
REPORT_ID = "202410072214.11d18a3c-oliver.sang@intel.com"
SUBJECT = "Re: [linux-next:master] [cpuidle]  38f83090f5:  fsmark.app_overhead 51.9% regression"


def report_body():
    text = REPORT.read_text()
    return text.split("\n\n", 1)[1].strip("\n").split("\n")


def nbsp_every_other(line):
    out, n = [], 0
    for ch in line:
        if ch == " ":
            n += 1
            out.append("\u00a0" if n % 2 == 0 else " ")
        else:
            out.append(ch)
    return "".join(out)


def tabs(line):
    return re.sub(r" {2,}", lambda m: "\t" * max(1, len(m.group()) // 4), line)


def wrap(line, prefix, width=72):
    """A client's re-wrap of one quoted line: break at the last space before `width`."""
    out = []
    while len(prefix) + len(line) > width and " " in line.strip():
        cut = line.rfind(" ", 0, width - len(prefix))
        if cut <= 0:
            break
        out.append(prefix + line[:cut].rstrip())
        line = line[cut + 1 :].lstrip()
    out.append(prefix + line)
    return out


def mail(headers, body, cte="8bit"):
    head = "\n".join(f"{k}: {v}" for k, v in headers) + "\n"
    head += f"MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: {cte}\n"
    return head + "\n" + body


def headers(mid, frm, date, refs):
    h = [("From", frm), ("To", "kernel test robot <oliver.sang@intel.com>"), ("Cc", "linux-pm@vger.kernel.org"),
         ("Subject", SUBJECT), ("Date", date), ("Message-ID", f"<{mid}>")]
    if refs:
        h += [("In-Reply-To", f"<{refs[-1]}>"), ("References", " ".join(f"<{r}>" for r in refs))]
    return h


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    lines = report_body()

    # >>> with U+00A0: two levels of replies in between
    q = [nbsp_every_other(l) for l in lines]
    body = ["On Tue, 8 Oct 2024 at 10:02, A Maintainer <maint@example.org> wrote:",
            ">> On Mon, 7 Oct 2024 at 17:18, Christian Loehle <christian.loehle@arm.com> wrote:",
            ">>> On Mon, 7 Oct 2024, kernel test robot wrote:"]
    body += [(">>> " + l).rstrip() for l in q]
    body += ["", "This is expected: the menu governor no longer counts iowait, so fsmark's", "app_overhead moves. Not a regression we will act on.", "", "Thanks,", "Jane", ""]
    text = mail(headers("r1-nbsp@example.org", "Jane Developer <jane@example.org>", "Wed, 9 Oct 2024 09:00:00 +0200",
                        [REPORT_ID, "c2@example.org"]), "\n".join(body))
    (OUT / "quoted-nbsp-depth3.eml").write_bytes(text.encode())

    # > > with tabs, re-wrapped at 72 columns
    body = ["On 10/7/24 15:43, kernel test robot wrote:", "> On 10/7/24, kernel test robot wrote:"]
    for l in lines:
        body += wrap(tabs(l), "> > ") if l.strip() else ["> >"]
    body += ["", "The fsmark runs vary by 3% here too; I could not reproduce the 51.9%.", "", "-- ", "Tom", ""]
    text = mail(headers("r2-tabs@example.org", "Tom Tester <tom@example.org>", "Thu, 10 Oct 2024 11:30:00 +0100",
                        [REPORT_ID]), "\n".join(body))
    (OUT / "quoted-tabs-wrapped-depth2.eml").write_bytes(text.encode())

    # > quoted-printable with =C2=A0, no threading headers
    body = ["Hi,", "", "On 07/10/2024 15:43, kernel test robot wrote:"]
    body += [("> " + nbsp_every_other(l)).rstrip() for l in lines]
    body += ["", "A fix is queued: the menu governor restores the old behaviour for this case.", ""]
    qp = quopri.encodestring("\n".join(body).encode()).decode()
    text = mail(headers("r3-qp@example.org", "Sam Reviewer <sam@example.org>", "Fri, 11 Oct 2024 08:15:00 +0000", []),
                qp, cte="quoted-printable")
    (OUT / "quoted-qp-depth1.eml").write_bytes(text.encode())

    # a reply whose report is not among the inputs
    other = (ROOT / "fixtures/corpus/043.txt").read_text().split("\n\n", 1)[1].strip("\n").split("\n")
    body = ["On Mon, 7 Oct 2024, kernel test robot wrote:"] + [(">>> " + nbsp_every_other(l)).rstrip() for l in other]
    body += ["", "Noise.", ""]
    h = headers("r4-orphan@example.org", "Jane Developer <jane@example.org>", "Wed, 9 Oct 2024 10:00:00 +0200",
                ["202412271132.a09c3500-lkp@intel.com"])
    h[3] = ("Subject", "Re: [linux-next:master] [io_uring/rw]  8cf0c45999:  fio.read_bw_MBps 51.1% regression")
    (OUT / "orphan-reply.eml").write_bytes(mail(h, "\n".join(body)).encode())


if __name__ == "__main__":
    main()
