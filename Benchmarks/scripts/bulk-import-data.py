#!/usr/bin/env python3
"""Generates the bulk-import benchmark inputs (issue 15): users.csv (1,000 users),
items.csv (N items by owner email, ISO times), items_native.csv (the items table's own
columns, for the sqlite3 shell's .import), items_upsert.csv (N rows with IDs 1..N, every
other title changed), users_big.csv (N users). Deterministic (seeded)."""
import random, sys, datetime, os
n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
out = sys.argv[2] if len(sys.argv) > 2 else "."
rng = random.Random(15)
words = ("shelf book note plan draft review garden kitchen travel budget music paper letter "
         "invoice project report meeting lamp window river mountain coffee tea summer winter "
         "autumn spring café naïve résumé déjà vu piano guitar bicycle repair paint desk chair "
         "phone cable backup photo album recipe bread soup market ticket train").split()
def text(lo, hi):
    return " ".join(rng.choice(words) for _ in range(rng.randint(lo, hi)))
def csvq(s):
    if any(c in s for c in ',"\n'):
        return '"' + s.replace('"', '""') + '"'
    return s
users = [(f"User {i} {rng.choice(words).title()}", f"user{i}@example.com") for i in range(1, 1001)]
with open(os.path.join(out, "users.csv"), "w") as f:
    f.write("name,email\n")
    for name, email in users:
        f.write(f"{csvq(name)},{email}\n")
with open(os.path.join(out, "users_big.csv"), "w") as f:
    f.write("name,email\n")
    for i in range(1, n + 1):
        f.write(f"{csvq('Person ' + str(i) + ' ' + text(1, 3))},person{i}@example.org\n")
base = 1_600_000_000_000
def iso(ms):
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"
rows = []
with open(os.path.join(out, "items.csv"), "w") as f, open(os.path.join(out, "items_native.csv"), "w") as g, \
     open(os.path.join(out, "items_upsert.csv"), "w") as h:
    f.write("user,title,notes,status,priority,created_at,updated_at\n")
    h.write("id,user,title,notes,status,priority,created_at,updated_at\n")
    for i in range(1, n + 1):
        u = rng.randrange(1000)
        title = text(2, 8).capitalize()
        r = rng.random()
        notes = "" if r < 0.3 else (text(3, 20) if r < 0.9 else text(20, 80) + ", \"quoted\"\n" + text(2, 10))
        status = "done" if rng.random() < 0.4 else "open"
        pr = rng.randrange(4)
        c = base + rng.randrange(100_000_000_000)
        up = c + rng.randrange(10_000_000)
        f.write(f"{users[u][1]},{csvq(title)},{csvq(notes)},{status},{pr},{iso(c)},{iso(up)}\n")
        g.write(f"{i},{u + 1},{csvq(title)},{csvq(notes) if notes else ''},{status},{pr},{c},{up},1\n")
        t2 = title + " (revised)" if i % 2 == 0 else title
        h.write(f"{i},{users[u][1]},{csvq(t2)},{csvq(notes)},{status},{pr},{iso(c)},{iso(up)}\n")
