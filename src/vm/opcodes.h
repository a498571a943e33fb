/* The instruction set of the tfxc rule VM: ONE X-macro list per table.
 * Stage: vm (shared by the assembler, verifier, interpreter, disassembler, trace printer and
 * the docs/opcodes.md generator). Every opcode-indexed table in src/vm expands
 * TFX_VM_OPCODES; nothing keeps a parallel hand-written list. Builtins and properties have
 * their own X-macro lists below. Changing any list changes the pack format: bump
 * TFX_PACK_VERSION (pack.h) and regenerate docs/opcodes.md (build target tfxc_opcodes_md). */
#ifndef TFX_VM_OPCODES_H
#define TFX_VM_OPCODES_H

/* Operand kinds: KIND_(name, doc-name, meaning). `_` marks an unused operand slot. */
#define TFX_VM_KINDS(KIND_)                                                                  \
  KIND_(_, "-", "no operand")                                                                \
  KIND_(R, "reg", "register `rN`, below the program's frame size")                           \
  KIND_(R2, "reg2", "register pair `rN`,`rN+1` (iterators), both below the frame size")      \
  KIND_(N, "count", "number of consecutive registers starting at the previous reg operand")  \
  KIND_(K, "const", "constant pool index `kN` (any type)")                                   \
  KIND_(KS, "str", "constant pool index of a string")                                        \
  KIND_(KO, "optype", "string constant naming a TF op type; linked to a module op id")       \
  KIND_(KT, "subtype", "string constant naming a sub_type; linked to a sub_type id")         \
  KIND_(J, "target", "absolute code address of an instruction of the same program")          \
  KIND_(I, "imm", "signed 32-bit immediate")                                                 \
  KIND_(D, "dir", "port direction: 0 = input, 1 = output")                                   \
  KIND_(B, "builtin", "builtin function id (TFX_VM_BUILTINS)")                               \
  KIND_(F, "feature", "feature id: index into the pack's feature table")                     \
  KIND_(P, "prop", "property id (TFX_VM_PROPS)")

/* Program kinds an opcode may appear in (column PROGS): ANY, SCOPE (pattern programs run per
 * candidate scope), SELECT (selection programs: require/fuse), MAP (op maps, per node),
 * EMIT (SELECT or MAP). Flags: 0, or END for instructions control never falls through. */

/* X(NAME, k1, k2, k3, k4, PROGS, FLAGS, effect, synopsis)
 * Operands are written a, b, c, d in order; R[x] is a register, K[x] a constant. */
#define TFX_VM_OPCODES(X)                                                                     \
  /* ---- values ---- */                                                                      \
  X(NOP, _, _, _, _, ANY, 0, "-", "do nothing")                                               \
  X(LOADK, R, K, _, _, ANY, 0, "R[a] = K[b]", "load a constant (strings, floats, lists...)")  \
  X(LOADI, R, I, _, _, ANY, 0, "R[a] = int b", "load a small integer")                        \
  X(LOADB, R, I, _, _, ANY, 0, "R[a] = bool b", "load true (b != 0) or false")                \
  X(LOADNONE, R, _, _, _, ANY, 0, "R[a] = none", "load none")                                 \
  X(MOVE, R, R, _, _, ANY, 0, "R[a] = R[b]", "copy a register")                               \
  X(ADD, R, R, R, _, ANY, 0, "R[a] = R[b] + R[c]", "add numbers; concatenate strings or lists") \
  X(SUB, R, R, R, _, ANY, 0, "R[a] = R[b] - R[c]", "subtract numbers")                        \
  X(MUL, R, R, R, _, ANY, 0, "R[a] = R[b] * R[c]", "multiply numbers")                        \
  X(DIV, R, R, R, _, ANY, 0, "R[a] = R[b] / R[c]", "divide (int truncates; by zero: error)")  \
  X(MOD, R, R, R, _, ANY, 0, "R[a] = R[b] % R[c]", "remainder (sign of b; by zero: error)")   \
  X(NEG, R, R, _, _, ANY, 0, "R[a] = -R[b]", "negate a number")                               \
  X(EQ, R, R, R, _, ANY, 0, "R[a] = R[b] == R[c]", "deep equality; int == float numerically")  \
  X(NE, R, R, R, _, ANY, 0, "R[a] = R[b] != R[c]", "negated EQ")                              \
  X(LT, R, R, R, _, ANY, 0, "R[a] = R[b] < R[c]", "order numbers, or strings bytewise")       \
  X(LE, R, R, R, _, ANY, 0, "R[a] = R[b] <= R[c]", "order numbers, or strings bytewise")      \
  X(GT, R, R, R, _, ANY, 0, "R[a] = R[b] > R[c]", "order numbers, or strings bytewise")       \
  X(GE, R, R, R, _, ANY, 0, "R[a] = R[b] >= R[c]", "order numbers, or strings bytewise")      \
  X(NOT, R, R, _, _, ANY, 0, "R[a] = not R[b]", "boolean negation (bool operand)")            \
  X(CONTAINS, R, R, R, _, ANY, 0, "R[a] = R[b] contains R[c]", "substring test; list membership when R[b] is a list") \
  X(STARTS, R, R, R, _, ANY, 0, "R[a] = R[b] starts_with R[c]", "prefix test")                \
  X(ENDS, R, R, R, _, ANY, 0, "R[a] = R[b] ends_with R[c]", "suffix test")                    \
  X(IN, R, R, R, _, ANY, 0, "R[a] = R[b] in R[c]", "list membership (EQ equality)")           \
  X(INDEX, R, R, R, _, ANY, 0, "R[a] = R[b][R[c]]", "list/string index; negative from end; out of range: none") \
  X(SLICE, R, R, R, R, ANY, 0, "R[a] = R[b][R[c]:R[d]]", "list/string slice, clamped; none bound = open") \
  X(PERM, R, R, R, _, ANY, 0, "R[a] = R[b][[R[c]...]]", "permute/gather a list by an index list") \
  X(NEWLIST, R, R, N, _, ANY, 0, "R[a] = [R[b] .. R[b+c-1]]", "build a list from consecutive registers") \
  X(LEN, R, R, _, _, ANY, 0, "R[a] = len(R[b])", "length of a list or string (none: 0)")      \
  X(PROP, R, R, P, _, ANY, 0, "R[a] = R[b].c", "property of a scope or node (none.x = none)") \
  X(ATTR, R, R, KS, _, ANY, 0, "R[a] = R[b].attr[K[c]]", "node attribute by name (none if missing)") \
  X(CALL, R, B, R, N, ANY, 0, "R[a] = b(R[c] .. R[c+d-1])", "call a builtin function")        \
  /* ---- control ---- */                                                                     \
  X(JMP, J, _, _, _, ANY, END, "pc = a", "jump")                                              \
  X(JT, R, J, _, _, ANY, 0, "if R[a]: pc = b", "jump if true (bool operand)")                 \
  X(JF, R, J, _, _, ANY, 0, "if not R[a]: pc = b", "jump if false (bool operand)")            \
  X(JNONE, R, J, _, _, ANY, 0, "if R[a] == none: pc = b", "jump if none")                     \
  X(JSOME, R, J, _, _, ANY, 0, "if R[a] != none: pc = b", "jump unless none (`??`)")          \
  X(ITER, R2, R, _, _, ANY, 0, "R[a] = R[b]; R[a+1] = 0", "start iterating a list (none: empty)") \
  X(NEXT, R2, R, J, _, ANY, 0, "R[b] = next of R[a] else pc = c", "next element, or jump when done") \
  X(RET, R, _, _, _, ANY, END, "return R[a]", "end the run with a value")                     \
  X(HALT, _, _, _, _, ANY, END, "return none", "end the run")                                 \
  /* ---- scope tests (pattern programs; the current scope is the candidate) ---- */         \
  X(SC_COUNT, F, KO, I, _, SCOPE, 0, "count(b) == c", "op-type count equals (absent = -1)")   \
  X(SC_STEP, F, KO, I, I, SCOPE, 0, "count(b) != -1 && count(b) % d == c", "op-type count with step (d != 0)") \
  X(SC_PRESENT, F, KO, _, _, SCOPE, 0, "count(b) != -1", "op type occurs in the subtree")     \
  X(SC_ABSENT, F, KO, _, _, SCOPE, 0, "count(b) == -1", "op type does not occur")             \
  X(SC_ATTR, F, KO, KS, K, SCOPE, 0, "direct b-node with attr c == K[d]", "NodeAttrFeature walk (ASCEND.md section 2.2)") \
  X(SC_SUBTYPES, F, KT, I, _, SCOPE, 0, "#descendants with sub_type b == c", "ScopeFeature sub_type count") \
  X(SC_NAME, F, KS, _, _, SCOPE, 0, "LastName == K[b]", "ScopeFeature suffix: LastName equality") \
  X(SC_MASK, F, KS, _, _, SCOPE, 0, "some descendant LastName contains K[b]", "ScopeFeature sub-scope mask") \
  X(SC_NORETVAL, F, _, _, _, SCOPE, 0, "count(_Retval) == -1", "the hidden no-_Retval rule")  \
  X(SC_CHECK, F, R, _, _, SCOPE, 0, "R[b] == true", "a feature computed by expression code")   \
  X(MATCH, KT, _, _, _, SCOPE, END, "matched; sub_type = a", "end: pattern matched (unless a test failed)") \
  /* ---- fusion results (selection programs) ---- */                                         \
  X(FR_BEGIN, _, _, _, _, SELECT, 0, "host.result_begin()", "begin a fusion result")          \
  X(FR_END, _, _, _, _, SELECT, 0, "host.result_end()", "commit the current fusion result")   \
  X(FR_SCOPES, R, _, _, _, SELECT, 0, "host.result_scopes(R[a])", "member scopes (scope or list)") \
  X(FR_NAME, R, _, _, _, SELECT, 0, "host.result_name(R[a])", "fused node name")              \
  X(FR_TYPE, R, _, _, _, SELECT, 0, "host.result_type(R[a])", "fused op type")                \
  X(FR_DESC, R, _, _, _, SELECT, 0, "host.result_description(R[a])", "description text")      \
  X(FR_INPUT, R, R, R, _, SELECT, 0, "host.result_map(in, R[a], R[b], R[c])", "input index map entry: key, port -> port|none") \
  X(FR_OUTPUT, R, R, R, _, SELECT, 0, "host.result_map(out, R[a], R[b], R[c])", "output index map entry") \
  X(FR_ABSORB, R, _, _, _, SELECT, 0, "host.result_absorb(R[a])", "absorb a node or a list of nodes") \
  X(FR_ATTR, KS, R, _, _, SELECT, 0, "host.result_attr(K[a], R[b])", "attribute of the fused op") \
  X(FR_INVALID, R, _, _, _, SELECT, 0, "host.result_invalid(R[a])", "drop this result (ScopeInvalidType)") \
  X(FR_KEY, D, R, I, _, SELECT, 0, "host.result_key(a, R[b], c)", "an index-map statement's key, before its entries: dir, key, flags (1 = optional; 2 | N << 2 = `absent` port N, key \"\")") \
  /* ---- inner nodes (many-to-many results, op -> graph maps) ---- */                        \
  X(NODE_NEW, R, R, _, _, EMIT, 0, "host.node_new(R[a], R[b])", "add an inner node: name, type") \
  X(NODE_IN, R, R, _, _, EMIT, 0, "host.node_input(R[a], R[b])", "next input: inner node name (none = boundary) and port") \
  X(NODE_CONST, R, _, _, _, EMIT, 0, "host.node_const(R[a])", "next input: a constant value")   \
  X(NODE_ATTR, KS, R, _, _, EMIT, 0, "host.node_attr(K[a], R[b])", "attribute of the newest inner node") \
  X(NODE_FORMAT, D, R, R, _, EMIT, 0, "host.node_format(a, R[b], R[c])", "port format of the newest inner node") \
  X(NODE_OUT, R, R, R, _, EMIT, 0, "host.node_out(R[a], R[b], R[c])", "boundary output a = inner node b, port c") \
  /* ---- op maps (map programs; the current node is the TF node) ---- */                    \
  X(MAP_TYPE, R, _, _, _, MAP, 0, "host.map_type(R[a])", "the CANN op type")                  \
  X(MAP_AUTO, _, _, _, _, MAP, 0, "host.map_auto()", "AutoMapping: copy attrs, set formats")  \
  X(MAP_ATTR, KS, R, _, _, MAP, 0, "host.map_attr(K[a], R[b])", "set an attribute")           \
  X(MAP_DROP, KS, _, _, _, MAP, 0, "host.map_drop(K[a])", "remove an attribute")              \
  X(MAP_FORMAT, D, R, R, _, MAP, 0, "host.map_format(a, R[b], R[c])", "force a port's format") \
  X(MAP_PORT, D, KS, R, _, MAP, 0, "host.map_port(a, K[b], R[c])", "named CANN port takes TF port R[c]") \
  X(MAP_OPTIONAL, KS, R, R, _, MAP, 0, "host.map_optional(K[a], R[b], R[c])", "optional input: name, TF port, connected") \
  X(MAP_DYNAMIC, D, KS, R, _, MAP, 0, "host.map_dynamic(a, K[b], R[c])", "dynamic port: count (int, or list length)") \
  X(MAP_DELETE, R, _, _, _, MAP, 0, "host.map_delete_input(R[a])", "drop a TF input (becomes a control edge)") \
  /* ---- dataflow rewrites (map programs of `rewrite` rules; the current node is the root) ---- */ \
  X(DF_CHECK, F, R, R, J, MAP, 0, "if not R[b]: fail(a, found R[c]); pc = d", "a pattern test: on failure record it (explain) and jump") \
  X(DF_IN, R, R, _, _, MAP, 0, "host.flow_input(R[a], R[b])", "next input of the newest new node: what data input R[b] of matched node R[a] reads") \
  X(DF_OUT, R, R, R, R, MAP, 0, "host.flow_out(R[a], R[b], R[c], R[d])", "rewire output R[b] of matched node R[a] to new node R[c] (a name) port R[d], or to what input R[d] of matched node R[c] reads") \
  X(DF_DEL, R, _, _, _, MAP, 0, "host.flow_remove(R[a])", "the matched nodes (a node or a list) the rewrite removes")

/* Builtin functions, the one table read by the VM and the rule checker (sema) alike:
 *   B(NAME, min_args, max_args, PROGS, synopsis, SOURCE, SOURCE_MAX, ARG1, ARG2, RESULT)
 * The columns before the synopsis are the VM's: id (order), the argument count a CALL may
 * pass, the program kinds it may appear in (the verifier's check; part of the pack
 * fingerprint). The columns after it are the rule language's (not in the fingerprint):
 *   SOURCE      where rule source may call it: ANY (.scoperule and .opmap), SCOPERULE, OPMAP,
 *               or NAME (not a call: a bare name in .opmap files, like `n_inputs`)
 *   SOURCE_MAX  the most arguments a call in rule source takes (`scopes` takes one sub_type
 *               name; the compiler merges a binding's sub_types into one call of up to max)
 *   ARG1, ARG2  static types sema requires of the first two arguments (TFX_T_* bits,
 *               bytecode.h); 0 = not checked (no such argument, or a special form)
 *   RESULT      static type of the result
 * SOURCE and PROGS must agree (a _Static_assert in opinfo.c): a .scoperule file compiles to
 * pattern, selection and rewrite (map) programs, an .opmap file to map programs. The
 * interpreter's switch over the ids (lib.c) has no default, so a row without an
 * implementation is a -Wswitch warning (an error with -DTFXC_WERROR=ON). */
#define TFX_VM_BUILTINS(B)                                                                     \
  B(len, 1, 1, ANY, "length of a list or string (none: 0)",                                    \
    ANY, 1, TFX_T_LIST | TFX_T_STRING, 0, TFX_T_INT)                                           \
  B(int, 1, 1, ANY, "to int: float truncates, string parses (bad: none), bool 0/1",            \
    ANY, 1, TFX_T_INT | TFX_T_FLOAT | TFX_T_STRING | TFX_T_BOOL, 0, TFX_T_INT)                 \
  B(float, 1, 1, ANY, "to float: int, bool, string (bad: none)",                               \
    ANY, 1, TFX_T_INT | TFX_T_FLOAT | TFX_T_STRING, 0, TFX_T_FLOAT)                            \
  B(round, 1, 1, ANY, "round half away from zero to int",                                      \
    ANY, 1, TFX_T_INT | TFX_T_FLOAT, 0, TFX_T_INT)                                             \
  B(str, 1, 1, ANY, "to string (scopes/nodes: their names)",                                   \
    ANY, 1, TFX_T_ANY, 0, TFX_T_STRING)                                                        \
  B(before, 2, 2, ANY, "part of a before the first b (none if absent)",                        \
    ANY, 2, TFX_T_STRING, TFX_T_STRING, TFX_T_STRING | TFX_T_NONE)                             \
  B(after, 2, 2, ANY, "part of a after the first b (none if absent)",                          \
    ANY, 2, TFX_T_STRING, TFX_T_STRING, TFX_T_STRING | TFX_T_NONE)                             \
  B(lookup, 2, 2, ANY, "value for key a in flat list [k0, v0, k1, v1, ...], or none",          \
    ANY, 2, TFX_T_ANY, TFX_T_DICT, TFX_T_ANY)                                                  \
  B(exists, 1, 1, ANY, "a != none",                                                            \
    ANY, 1, TFX_T_ANY, 0, TFX_T_BOOL)                                                          \
  B(scope, 2, 2, ANY, "scope named a.name + b, or none",                                       \
    SCOPERULE, 2, TFX_T_SCOPE, TFX_T_STRING, TFX_T_SCOPE | TFX_T_NONE)                         \
  B(node, 2, 2, ANY, "node named a.name + b, or none",                                         \
    SCOPERULE, 2, TFX_T_SCOPE, TFX_T_STRING, TFX_T_NODE | TFX_T_NONE)                          \
  B(find, 2, 2, ANY, "first node of scope a's subtree whose name ends with b",                 \
    SCOPERULE, 2, TFX_T_SCOPE, TFX_T_STRING, TFX_T_NODE | TFX_T_NONE)                          \
  B(find_contains, 2, 2, ANY, "first node of scope a's subtree whose name contains b",         \
    SCOPERULE, 2, TFX_T_SCOPE, TFX_T_STRING, TFX_T_NODE | TFX_T_NONE)                          \
  B(scopes, 1, 8, ANY, "scopes carrying any of the sub_types (strings), depth-first",          \
    SCOPERULE, 1, 0, 0, TFX_T_LIST)                                                            \
  B(all_scopes, 0, 0, ANY, "every scope, the root first, then depth-first (GetAllScopes)",     \
    SCOPERULE, 0, 0, 0, TFX_T_LIST)                                                            \
  B(consumers, 1, 1, ANY, "distinct consumer nodes of a node, in edge order",                  \
    SCOPERULE, 1, TFX_T_NODE, 0, TFX_T_LIST)                                                   \
  B(producers, 1, 1, ANY, "distinct producers of a node incl. control, in input order",        \
    SCOPERULE, 1, TFX_T_NODE, 0, TFX_T_LIST)                                                   \
  B(const_value, 1, 1, ANY, "value of a Const node (or of the first Const feeding it) as a list", \
    ANY, 1, TFX_T_NODE | TFX_T_INPUT, 0, TFX_T_LIST | TFX_T_NONE)                              \
  B(inside, 2, 2, ANY, "node a belongs to the subtree of scope b",                             \
    SCOPERULE, 2, TFX_T_NODE, TFX_T_SCOPE, TFX_T_BOOL)                                         \
  B(format_of, 1, 1, MAP, "format of the current node's data input a (host query)",            \
    OPMAP, 1, TFX_T_INPUT, 0, TFX_T_STRING)                                                    \
  B(dtype_of, 1, 1, MAP, "dtype of the current node's data input a (host query)",              \
    OPMAP, 1, TFX_T_INPUT, 0, TFX_T_DTYPE)                                                     \
  B(has_input, 1, 1, MAP, "the current node has data input a",                                 \
    OPMAP, 1, TFX_T_INT, 0, TFX_T_BOOL)                                                        \
  B(n_inputs, 0, 0, MAP, "number of data inputs of the current node",                          \
    NAME, 0, 0, 0, TFX_T_INT)                                                                  \
  B(op, 0, 0, MAP, "op type of the current node",                                              \
    NAME, 0, 0, 0, TFX_T_STRING)                                                               \
  B(input_port, 2, 2, ANY, "output port of its producer that data input b of node a reads (none: no such input)", \
    ANY, 2, TFX_T_NODE, TFX_T_INT, TFX_T_INT | TFX_T_NONE)                                     \
  B(input_ref, 2, 2, ANY, "the value data input b of node a reads, as a string (\"x\", \"x:1\"; none: no such input)", \
    ANY, 2, TFX_T_NODE, TFX_T_INT, TFX_T_STRING | TFX_T_NONE)

/* Properties: P(NAME, ON, synopsis); ON is SCOPE, NODE or BOTH. */
#define TFX_VM_PROPS(P)                                                                        \
  P(name, BOTH, "scope: full name with trailing '/' (\"root\"); node: its name")              \
  P(last_name, SCOPE, "LastName (ASCEND.md section 1.3)")                                     \
  P(parent, SCOPE, "parent scope, none at the root")                                          \
  P(children, SCOPE, "direct sub-scopes, byte order of names")                                \
  P(sub_type, SCOPE, "sub_type string, none if unset")                                        \
  P(nodes, SCOPE, "direct nodes, graph order")                                                \
  P(all_nodes, SCOPE, "all nodes of the subtree, graph order")                                \
  P(op, NODE, "op type")                                                                      \
  P(scope, NODE, "innermost scope (none for odd names)")                                      \
  P(inputs, NODE, "data-input producers in port order (none for unresolved)")

#endif
