// The level-2 store's schema: one SQLite database holding any number of documents. Documented
// for the app's engineers in README.md ("Level-2 storage"); keep the two in step.

import LNoteFormat

public enum StoreSchema {
    /// `PRAGMA application_id`: "LNST". A database without it is not a store, and is never
    /// replaced or read as one.
    public static let applicationID: Int64 = 0x4C4E_5354
    /// `PRAGMA user_version`: bumped with every incompatible change of the tables below.
    public static let version: Int64 = 1

    static let tables = """
        CREATE TABLE documents (
            id          INTEGER PRIMARY KEY,
            package     TEXT NOT NULL UNIQUE,  -- the package directory's name, e.g. <UUID>.lnote
            uuid        TEXT,                  -- document.json id as written (NULL: missing or not a UUID)
            title       TEXT NOT NULL,
            created_at  TEXT,
            modified_at TEXT
        );
        CREATE TABLE pages (
            id               INTEGER PRIMARY KEY,
            document         INTEGER NOT NULL REFERENCES documents(id),
            position         INTEGER NOT NULL,  -- 0-based place in the page order
            uuid             TEXT,              -- as written; NULL for an entry without a string id
            width            INTEGER,           -- 0.1 pt; NULL when the entry itself is invalid
            height           INTEGER,
            created_at       TEXT,
            modified_at      TEXT,
            background_color TEXT,              -- the background as read (invalid values already defaulted)
            template         TEXT,
            spacing          INTEGER,
            line_color       TEXT,
            content_extra    TEXT,              -- the snapshot's unknown top-level members, as a JSON object
            invalid_elements INTEGER NOT NULL DEFAULT 0,  -- snapshot elements skipped as invalid
            discarded_frames INTEGER NOT NULL DEFAULT 0,  -- journal frames discarded by replay
            failure          TEXT,              -- non-NULL: the page could not be read; why
            UNIQUE (document, position)
        );
        CREATE TABLE strokes (
            id           INTEGER PRIMARY KEY,
            page         INTEGER NOT NULL REFERENCES pages(id),
            z            INTEGER NOT NULL,      -- index in the page's element array (z-order)
            uuid         TEXT,                  -- element id as written
            tool         TEXT,                  -- as written when a string (NULL: absent, drawn as pen)
            color        TEXT NOT NULL,         -- #RRGGBB or #RRGGBBAA
            sample_count INTEGER NOT NULL,
            samples      BLOB NOT NULL CHECK (length(samples) = 16 * sample_count),
            extra        TEXT,                  -- members other than type/id/tool/color/points, as a JSON object
            UNIQUE (page, z)
        );
        CREATE TABLE images (
            id       INTEGER PRIMARY KEY,
            page     INTEGER NOT NULL REFERENCES pages(id),
            z        INTEGER NOT NULL,
            uuid     TEXT,
            asset    TEXT NOT NULL,             -- <UUID>.jpg|png as written; see document_assets
            x        INTEGER NOT NULL,
            y        INTEGER NOT NULL,
            width    INTEGER NOT NULL,
            height   INTEGER NOT NULL,
            rotation INTEGER NOT NULL,          -- thousandths of a degree, clockwise
            opacity  INTEGER NOT NULL,          -- 0...1000
            extra    TEXT,                      -- members other than type/id/asset/frame/rotation/opacity
            UNIQUE (page, z)
        );
        CREATE TABLE other_elements (             -- elements of a type this version does not know
            id    INTEGER PRIMARY KEY,
            page  INTEGER NOT NULL REFERENCES pages(id),
            z     INTEGER NOT NULL,
            uuid  TEXT,
            type  TEXT NOT NULL,
            json  TEXT NOT NULL,                  -- the element exactly as read
            UNIQUE (page, z)
        );
        CREATE TABLE assets (                     -- each content stored once, whoever uses it
            id     INTEGER PRIMARY KEY,
            sha256 TEXT NOT NULL UNIQUE,          -- of data, 64 lowercase hex digits
            size   INTEGER NOT NULL,
            data   BLOB NOT NULL CHECK (length(data) = size)
        );
        CREATE TABLE document_assets (            -- the files of each package's assets/
            document INTEGER NOT NULL REFERENCES documents(id),
            name     TEXT NOT NULL,               -- the file name, <UUID>.jpg|png
            asset    INTEGER NOT NULL REFERENCES assets(id),
            PRIMARY KEY (document, name)
        ) WITHOUT ROWID;
        CREATE TABLE problems (                   -- what migration reported: invalid elements, failed pages...
            id            INTEGER PRIMARY KEY,
            document      INTEGER REFERENCES documents(id),
            page          INTEGER REFERENCES pages(id),
            severity      TEXT NOT NULL,          -- error | warning
            file          TEXT NOT NULL,          -- relative to the package
            element_index INTEGER,
            element_uuid  TEXT,
            rule          TEXT NOT NULL,
            message       TEXT NOT NULL
        );
        """

    /// Creates the tables in an empty database.
    public static func create(in db: SQLiteDatabase) throws(LNoteError) {
        try db.execute("PRAGMA application_id = \(applicationID); PRAGMA user_version = \(version);")
        try db.execute(tables)
    }

    /// Whether the open database is a store this version reads; an error saying why not.
    static func check(_ db: SQLiteDatabase) throws(LNoteError) {
        let app: Int64
        do {
            app = try db.integer("PRAGMA application_id")
        } catch {
            throw LNoteError(.invalid, file: db.path, code: .store, message: "not an lnote store (\(error.message))")
        }
        guard app == applicationID else {
            throw LNoteError(.invalid, file: db.path, code: .store,
                             message: "not an lnote store (application_id \(app), expected \(applicationID))")
        }
        let version = try db.integer("PRAGMA user_version")
        guard version == StoreSchema.version else {
            throw LNoteError(version > StoreSchema.version ? .newerFormat : .invalid, file: db.path, code: .storeVersion,
                             message: "store version \(version); this version reads version \(StoreSchema.version)")
        }
    }
}
