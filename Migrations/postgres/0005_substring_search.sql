-- Substring search for text that has no spaces between its words, and for symbols: the
-- PostgreSQL side of Migrations/0007_substring_search.sql. A run of Chinese, Japanese,
-- Korean or Thai letters of the query, and a run of symbols (🎂), is searched as a substring
-- of the title or the notes, compared as stored: `title LIKE '%run%' OR notes LIKE '%run%'`
-- (ItemQuery.postgresFilter), the same answers as SQLite's LIKE over its trigram index.
--
-- pg_trgm's GIN indexes make that LIKE an index search for runs of 3 letters or more. The
-- extension ships with PostgreSQL (postgresql-contrib, part of Debian's postgresql package)
-- and is trusted: the owner of the database may create it. Where it is missing, or cannot
-- be created, the migration goes on without the indexes: answers are the same, such searches
-- read the table. The operator class is named with the schema the extension lives in.
DO $substring$
DECLARE
    trigram_schema name;
BEGIN
    SELECT n.nspname INTO trigram_schema
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
    IF trigram_schema IS NULL
        AND EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm')
    THEN
        BEGIN
            CREATE EXTENSION IF NOT EXISTS pg_trgm;
            SELECT n.nspname INTO trigram_schema
            FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
        EXCEPTION WHEN OTHERS THEN
            RAISE NOTICE 'shelf: pg_trgm could not be created (%); substring searches will read the table',
                SQLERRM;
        END;
    END IF;
    IF trigram_schema IS NOT NULL THEN
        EXECUTE format('CREATE INDEX items_title_trigram ON items USING gin (title %I.gin_trgm_ops)',
            trigram_schema);
        EXECUTE format('CREATE INDEX items_notes_trigram ON items USING gin (notes %I.gin_trgm_ops)',
            trigram_schema);
    END IF;
END
$substring$;
