-- Substring search for text that has no spaces between its words, and for symbols.
--
-- items_fts (unicode61) splits text into words at spaces and punctuation: a run of Chinese,
-- Japanese, Korean or Thai letters is one "word", so a word inside it ("ドキュメント" in
-- "日本語のドキュメント") was never found, and emoji (🎂) were not indexed at all. Such a run
-- of the query, and a run of symbols, is searched as a substring of the title or the notes
-- (FullTextQuery.terms, ItemQuery.sqliteFilter): through this trigram index when it is 3
-- characters or longer, by reading the rows when it is shorter (a trigram index holds no
-- shorter keys). detail = 'none' keeps only which rows hold each trigram (no positions): it
-- is about half the size and takes half the time to build, and LIKE reads the row to confirm
-- each candidate. The index is built once here: at 200,000 items with 180 characters of notes
-- each, 82 s on a loaded machine of 2 cores (docs/ARCHITECTURE.md, "Search").

CREATE VIRTUAL TABLE items_trigram USING fts5 (
    title, notes,
    content = 'items', content_rowid = 'id',
    tokenize = 'trigram',
    detail = 'none'
);

-- Built without incremental merges (as ImportRebuild does), then FTS5's default put back.
INSERT INTO items_trigram (items_trigram, rank) VALUES ('automerge', 0);
INSERT INTO items_trigram (items_trigram) VALUES ('rebuild');
INSERT INTO items_trigram (items_trigram, rank) VALUES ('automerge', 4);

CREATE TRIGGER items_trigram_after_insert AFTER INSERT ON items BEGIN
    INSERT INTO items_trigram (rowid, title, notes) VALUES (new.id, new.title, new.notes);
END;

CREATE TRIGGER items_trigram_after_delete AFTER DELETE ON items BEGIN
    INSERT INTO items_trigram (items_trigram, rowid, title, notes) VALUES ('delete', old.id, old.title, old.notes);
END;

CREATE TRIGGER items_trigram_after_update AFTER UPDATE OF title, notes ON items BEGIN
    INSERT INTO items_trigram (items_trigram, rowid, title, notes) VALUES ('delete', old.id, old.title, old.notes);
    INSERT INTO items_trigram (rowid, title, notes) VALUES (new.id, new.title, new.notes);
END;
