//! The expression of a derived metric: numbers, names, `+ - * /`, a leading minus and
//! parentheses, over one run's values. Nothing else (no functions, no conditions, no loops), so
//! that a study can say how a figure is computed and nothing more.

/// A parsed expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Number(f64),
    /// A metric of the run, a derived metric defined earlier, or a value of the run's setup
    /// (`gpus`, `output_tokens`, ...).
    Name(String),
    Negate(Box<Expr>),
    Binary(Op, Box<Expr>, Box<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Subtract,
    Multiply,
    Divide,
}

/// Why an expression does not parse: the byte offset in its text and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    pub offset: usize,
    pub message: String,
}

/// The longest expression read, against pathological input.
const MAX_LEN: usize = 1000;
/// The deepest nesting of parentheses and minus signs.
const MAX_DEPTH: usize = 50;

impl Expr {
    pub fn parse(text: &str) -> Result<Expr, ExprError> {
        if text.len() > MAX_LEN {
            return Err(ExprError { offset: 0, message: format!("an expression is at most {MAX_LEN} characters") });
        }
        let mut p = Parser { text, at: 0, depth: 0 };
        let expr = p.sum()?;
        p.space();
        if p.at < text.len() {
            return Err(p.error("expected an operator (`+ - * /`) or the end"));
        }
        Ok(expr)
    }

    /// Every name the expression reads, in order of appearance.
    pub fn names(&self) -> Vec<&str> {
        match self {
            Expr::Number(_) => Vec::new(),
            Expr::Name(n) => vec![n.as_str()],
            Expr::Negate(e) => e.names(),
            Expr::Binary(_, a, b) => {
                let mut out = a.names();
                out.extend(b.names());
                out
            }
        }
    }

    /// The value, given the value of each name; `None` when a name has no value, a division is
    /// by zero or the result is not a finite number.
    pub fn eval(&self, value: &dyn Fn(&str) -> Option<f64>) -> Option<f64> {
        let x = match self {
            Expr::Number(x) => *x,
            Expr::Name(n) => value(n)?,
            Expr::Negate(e) => -e.eval(value)?,
            Expr::Binary(op, a, b) => {
                let (a, b) = (a.eval(value)?, b.eval(value)?);
                match op {
                    Op::Add => a + b,
                    Op::Subtract => a - b,
                    Op::Multiply => a * b,
                    Op::Divide if b == 0.0 => return None,
                    Op::Divide => a / b,
                }
            }
        };
        x.is_finite().then_some(x)
    }
}

struct Parser<'a> {
    text: &'a str,
    at: usize,
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> ExprError {
        ExprError { offset: self.at, message: message.to_string() }
    }

    fn space(&mut self) {
        while self.text[self.at..].starts_with([' ', '\t']) {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.space();
        self.text[self.at..].chars().next()
    }

    fn sum(&mut self) -> Result<Expr, ExprError> {
        self.chain([('+', Op::Add), ('-', Op::Subtract)], Parser::product)
    }

    fn product(&mut self) -> Result<Expr, ExprError> {
        self.chain([('*', Op::Multiply), ('/', Op::Divide)], Parser::factor)
    }

    /// Operands read by `operand` joined, left to right, by the operators of one precedence.
    fn chain(
        &mut self,
        ops: [(char, Op); 2],
        operand: fn(&mut Self) -> Result<Expr, ExprError>,
    ) -> Result<Expr, ExprError> {
        let mut left = operand(self)?;
        while let Some(op) = self.peek().and_then(|c| ops.iter().find(|(o, _)| *o == c).map(|(_, op)| *op)) {
            self.at += 1;
            left = Expr::Binary(op, Box::new(left), Box::new(operand(self)?));
        }
        Ok(left)
    }

    fn factor(&mut self) -> Result<Expr, ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("the expression nests too deeply"));
        }
        let out = match self.peek() {
            Some('-') => {
                self.at += 1;
                Ok(Expr::Negate(Box::new(self.factor()?)))
            }
            Some('(') => {
                self.at += 1;
                let inner = self.sum()?;
                if self.peek() != Some(')') {
                    return Err(self.error("expected `)`"));
                }
                self.at += 1;
                Ok(inner)
            }
            Some(c) if c.is_ascii_digit() || c == '.' => {
                let rest = &self.text[self.at..];
                let len = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
                let number = rest[..len].parse::<f64>().map_err(|_| self.error("not a number"))?;
                self.at += len;
                Ok(Expr::Number(number))
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let rest = &self.text[self.at..];
                let len =
                    rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.')).unwrap_or(rest.len());
                self.at += len;
                Ok(Expr::Name(rest[..len].to_string()))
            }
            Some(_) => Err(self.error("expected a number, a name, `-` or `(`")),
            None => Err(self.error("the expression ends where a number or a name is expected")),
        };
        self.depth -= 1;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str) -> Option<f64> {
        let values = |n: &str| match n {
            "mean_ttft_ms" => Some(100.0),
            "mean_tpot_ms" => Some(10.0),
            "output_tokens" => Some(50.0),
            "gpus" => Some(2.0),
            "zero" => Some(0.0),
            _ => None,
        };
        Expr::parse(text).unwrap().eval(&values)
    }

    #[test]
    fn arithmetic_with_precedence_and_parentheses() {
        assert_eq!(eval("(mean_ttft_ms + output_tokens * mean_tpot_ms) / 1000"), Some(0.6));
        assert_eq!(eval("mean_ttft_ms - -mean_tpot_ms / gpus"), Some(105.0));
        assert_eq!(eval("2 * (3 + 4)"), Some(14.0));
        assert_eq!(eval("1 / zero"), None, "division by zero has no value");
        assert_eq!(eval("unknown + 1"), None);
        let e = Expr::parse("a * (b + c) - d").unwrap();
        assert_eq!(e.names(), ["a", "b", "c", "d"]);
    }

    #[test]
    fn errors_point_at_their_place() {
        let err = |t: &str| Expr::parse(t).unwrap_err();
        assert_eq!(err("a +").offset, 3);
        assert_eq!(err("(a + b").message, "expected `)`");
        assert_eq!(err("a b").offset, 2);
        assert_eq!(err("a; rm -rf /").offset, 1);
        assert_eq!(err("1.2.3").message, "not a number");
        assert!(err(&"(".repeat(100)).message.contains("nests too deeply"));
        assert!(err(&"a+".repeat(600)).message.contains("at most"));
    }
}
