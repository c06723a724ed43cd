-- Saved notebooks (store/notebooks.py).

-- Notebooks (iolens/store/notebooks.py): each row is one saved version, immutable once written. The id is
-- content-addressed (see store/notebooks.py); editing a saved notebook and saving again writes a
-- new row whose parent_id is the version it was edited from. Not queryable from SQL cells.
CREATE TABLE IF NOT EXISTS notebook_versions (
    notebook_id    VARCHAR PRIMARY KEY,  -- 10 base32 chars of sha256(canonical {document, parent})
    sha256         VARCHAR NOT NULL,     -- full hash of the same bytes (detects an id collision)
    parent_id      VARCHAR,              -- the version this one was edited from; NULL for a first save
    format_version INTEGER NOT NULL,     -- the document's format_version as saved
    title          VARCHAR NOT NULL,
    captures       VARCHAR[] NOT NULL,   -- capture ids of the document, baseline first
    document       JSON NOT NULL,        -- as saved, never rewritten (upgraded when read)
    search_text    VARCHAR NOT NULL,     -- lower-case title, text, SQL, capture labels/tags/kernels
    created_at     TIMESTAMP NOT NULL
);
