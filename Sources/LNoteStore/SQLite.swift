// The one place that calls the SQLite C API. Everything else in LNoteStore talks to a
// `SQLiteDatabase` and its `SQLiteStatement`s, and gets `LNoteError`s naming the database file.

import CSQLite
import LNoteFormat

/// An open connection to one database file. Not shared between threads: each user opens its own
/// (SQLite is built thread-safe on Debian, but a connection's statements are not).
public final class SQLiteDatabase {
    /// How to open the file.
    public enum Mode: Sendable {
        /// Create the file if missing; read and write.
        case create
        /// An existing file only; read and write (a reader that is the last to close still
        /// checkpoints and removes the `-wal` and `-shm` files, which a read-only one cannot).
        case readWrite
        /// An existing file only; never written.
        case readOnly
    }

    /// The path as given, named in every error.
    public let path: String
    private var handle: OpaquePointer?

    public init(path: String, mode: Mode) throws(LNoteError) {
        self.path = path
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        switch mode {
        case .create: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        }
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(db)
            throw LNoteError(code == SQLITE_CANTOPEN ? .missing : .io, file: path, code: .sqliteOpen,
                             message: "cannot open the database: \(message)")
        }
        handle = db
        // Another process's short write lock (a checkpoint) is waited for, not failed on.
        sqlite3_busy_timeout(db, 5000)
        sqlite3_extended_result_codes(db, 1)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Closes the connection, reporting what SQLite says. A WAL database's last connection
    /// checkpoints and deletes its `-wal` and `-shm` files here.
    public func close() throws(LNoteError) {
        guard let db = handle else { return }
        let code = sqlite3_close(db)
        guard code == SQLITE_OK else {
            throw LNoteError(.io, file: path, code: .sqliteClose, message: "cannot close the database: \(String(cString: sqlite3_errmsg(db)))")
        }
        handle = nil
    }

    func connection() throws(LNoteError) -> OpaquePointer {
        guard let handle else { throw LNoteError(.io, file: path, code: .sqlite, message: "the database is closed") }
        return handle
    }

    func error(_ code: Int32, _ what: String) -> LNoteError {
        let detail = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        let kind: LNoteError.Kind = (code & 0xFF) == SQLITE_CORRUPT || (code & 0xFF) == SQLITE_NOTADB ? .invalid : .io
        return LNoteError(kind, file: path, code: .sqlite, message: "\(what): \(detail) (code \(code))")
    }

    /// Runs one or more statements that return no rows of interest.
    public func execute(_ sql: String) throws(LNoteError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(try connection(), sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_free(message)
            throw LNoteError(.io, file: path, code: .sqlite, message: "\(text) (code \(code)) in: \(sql.prefix(80))")
        }
    }

    public func prepare(_ sql: String) throws(LNoteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(try connection(), sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { throw error(code, "cannot prepare \(sql.prefix(60))") }
        return SQLiteStatement(statement, database: self)
    }

    /// The single integer a query returns (0 when it returns no row or NULL).
    public func integer(_ sql: String) throws(LNoteError) -> Int64 {
        let s = try prepare(sql)
        return try s.step() ? s.int(0) : 0
    }

    /// The rowid of the last row inserted through this connection.
    public var lastInsertRowID: Int64 { handle.map { sqlite3_last_insert_rowid($0) } ?? 0 }

    /// The single text a query returns, nil when it returns no row or NULL.
    public func text(_ sql: String) throws(LNoteError) -> String? {
        let s = try prepare(sql)
        return try s.step() ? s.text(0) : nil
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)`: the whole WAL is written into the database file and
    /// the WAL truncated to zero bytes. Fails when a reader or writer keeps it from completing.
    public func checkpointTruncate() throws(LNoteError) {
        var logFrames: Int32 = 0, checkpointed: Int32 = 0
        let code = sqlite3_wal_checkpoint_v2(try connection(), nil, SQLITE_CHECKPOINT_TRUNCATE, &logFrames, &checkpointed)
        guard code == SQLITE_OK else { throw error(code, "wal_checkpoint(TRUNCATE) failed") }
        guard logFrames <= 0 || checkpointed == logFrames else {
            throw LNoteError(.io, file: path, code: .sqlite, message: "wal_checkpoint(TRUNCATE) wrote \(checkpointed) of \(logFrames) frames")
        }
    }

    /// The SQLite library version, e.g. `3.40.1`.
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}

/// A prepared statement. Parameters are numbered from 1, result columns from 0, as in SQLite.
public final class SQLiteStatement {
    private let statement: OpaquePointer
    private let database: SQLiteDatabase

    init(_ statement: OpaquePointer, database: SQLiteDatabase) {
        self.statement = statement
        self.database = database
    }

    deinit { sqlite3_finalize(statement) }

    /// SQLite copies bound text and blobs (`SQLITE_TRANSIENT`), so the Swift value need not
    /// outlive the call.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private func check(_ code: Int32, _ index: Int32) throws(LNoteError) {
        if code != SQLITE_OK { throw database.error(code, "cannot bind parameter \(index)") }
    }

    public func bind(_ index: Int32, _ value: Int64) throws(LNoteError) {
        try check(sqlite3_bind_int64(statement, index, value), index)
    }

    public func bind(_ index: Int32, _ value: Int) throws(LNoteError) { try bind(index, Int64(value)) }

    public func bind(_ index: Int32, _ value: Int?) throws(LNoteError) {
        if let value { try bind(index, Int64(value)) } else { try bindNull(index) }
    }

    public func bind(_ index: Int32, _ value: String?) throws(LNoteError) {
        guard let value else { return try bindNull(index) }
        try check(sqlite3_bind_text(statement, index, value, -1, Self.transient), index)
    }

    /// UTF-8 text given as bytes, bound with its length (so it is stored exactly, whatever it holds).
    public func bind(_ index: Int32, text bytes: [UInt8]?) throws(LNoteError) {
        guard let bytes else { return try bindNull(index) }
        let code = bytes.withUnsafeBufferPointer { buf in
            // A nil pointer would bind NULL; an empty text is bound from a static empty string.
            buf.isEmpty ? sqlite3_bind_text(statement, index, "", 0, Self.transient)
                        : sqlite3_bind_text64(statement, index, UnsafeRawPointer(buf.baseAddress!).assumingMemoryBound(to: CChar.self),
                                              sqlite3_uint64(buf.count), Self.transient, UInt8(SQLITE_UTF8))
        }
        try check(code, index)
    }

    public func bind(_ index: Int32, blob bytes: UnsafeRawBufferPointer) throws(LNoteError) {
        // A zero-length blob is still a blob, not NULL (sqlite3_bind_blob with a nil pointer
        // binds NULL).
        if bytes.isEmpty { return try check(sqlite3_bind_zeroblob(statement, index, 0), index) }
        try check(sqlite3_bind_blob64(statement, index, bytes.baseAddress, sqlite3_uint64(bytes.count), Self.transient), index)
    }

    public func bind(_ index: Int32, blob bytes: [UInt8]) throws(LNoteError) {
        // withUnsafeBytes does not pass a typed error through.
        var failure: LNoteError?
        bytes.withUnsafeBytes { raw in
            do throws(LNoteError) { try bind(index, blob: raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    public func bindNull(_ index: Int32) throws(LNoteError) {
        try check(sqlite3_bind_null(statement, index), index)
    }

    /// Steps once: true when a row is ready, false when the statement is done.
    @discardableResult
    public func step() throws(LNoteError) -> Bool {
        let code = sqlite3_step(statement)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(code, "statement failed")
        }
    }

    /// Runs the statement to its end with its current bindings, then resets it for the next.
    public func run() throws(LNoteError) {
        defer { reset() }
        while try step() {}
    }

    /// Ready for new bindings and another run.
    public func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }

    public func int(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    public func optionalInt(_ column: Int32) -> Int? { isNull(column) ? nil : Int(int(column)) }

    public func text(_ column: Int32) -> String? {
        guard let p = sqlite3_column_text(statement, column) else { return nil }
        let n = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    /// The text's bytes exactly as stored; nil for NULL.
    public func textBytes(_ column: Int32) -> [UInt8]? {
        guard let p = sqlite3_column_text(statement, column) else { return nil }
        let n = Int(sqlite3_column_bytes(statement, column))
        return Array(UnsafeBufferPointer(start: p, count: n))
    }

    /// The column's bytes, valid only until the next step, reset or column call (SQLite's rule).
    public func withBlob<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        let p = sqlite3_column_blob(statement, column)
        let n = Int(sqlite3_column_bytes(statement, column))
        return body(UnsafeRawBufferPointer(start: n == 0 ? nil : p, count: n))
    }

    public func blob(_ column: Int32) -> [UInt8] {
        let p = sqlite3_column_blob(statement, column)
        let n = Int(sqlite3_column_bytes(statement, column))
        guard let p, n > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }
}
