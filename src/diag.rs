//! A problem found in an input file, with its position, printed as `file:line:col: message`.

use std::fmt;
use std::path::{Path, PathBuf};

/// One problem in one file. `line` and `col` count from 1; 0 means the whole file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Diagnostic {
    pub file: PathBuf,
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl Diagnostic {
    pub fn new(file: &Path, line: usize, col: usize, message: impl Into<String>) -> Diagnostic {
        Diagnostic { file: file.to_path_buf(), line, col, message: message.into() }
    }

    /// A diagnostic at byte `offset` of `source`, the text of `file`.
    pub fn at(file: &Path, source: &str, offset: usize, message: impl Into<String>) -> Diagnostic {
        let (line, col) = line_col(source, offset);
        Diagnostic::new(file, line, col, message)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}", self.file.display(), self.line, self.col, self.message)
    }
}

/// 1-based line and column (in characters) of byte `offset` in `source`.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &source[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Problems found in a set of files, in file and position order.
#[derive(Debug, Default, thiserror::Error)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::line_col;

    #[test]
    fn positions_count_from_one() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        assert_eq!(line_col("ğü\nx", 4), (1, 3));
        assert_eq!(line_col("x", 99), (1, 2));
    }
}
