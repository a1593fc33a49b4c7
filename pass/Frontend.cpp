// SPDX-License-Identifier: MIT
// Frontend half of instrument.so: a Clang plugin action that runs before the
// main (codegen) action when loaded with -fplugin=. It
//   - parses -fplugin-arg-instrument-KEY=VALUE (and PARATRACE_PLUGIN_ARGS),
//     turning a bad option into a real compile error (clang silently drops a
//     plugin whose ParseArgs returns false),
//   - adds this very shared object to the backend's pass plugins, so that the
//     IR pass half (Instrument.cpp) gets registered with the new pass manager,
//   - records what only the AST knows: no_instrument_function, system
//     headers, implicit (compiler-generated) functions, source locations
//     when there is no debug info, the closure types a lambda is nested in,
//     and the OpenMP directives and blocks of each function, in source
//     order (how the pass names outlined code without -g: Names.cpp).
#include "Shared.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/Mangle.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/OpenMPKinds.h>
#include <clang/Basic/Version.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendPluginRegistry.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <cctype>
#include <dlfcn.h>

using namespace clang;

namespace paratrace {

FrontendState &frontendState()
{
	static FrontendState state;
	return state;
}

std::string normaliseName(const std::string &name)
{
	std::string out;
	for (size_t i = 0; i < name.size(); i++) {
		out += name[i];
		if (name[i] == '$' && i + 1 < name.size() && name[i + 1] == '_') {
			out += '_';
			i++;
			while (i + 1 < name.size() && isdigit(static_cast<unsigned char>(name[i + 1])))
				i++;
		}
	}
	return out;
}

std::string normalisePath(const std::string &path)
{
	if (path.empty())
		return path;
	llvm::SmallString<256> p(path);
	llvm::sys::fs::make_absolute(p);
	llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
	return std::string(p.str());
}

std::string lambdaTag(const std::string &file, unsigned line)
{
	std::string at = llvm::sys::path::filename(file).str();
	if (line)
		at += ":" + std::to_string(line);
	return "<lambda at " + at + ">";
}

namespace {

void reportError(DiagnosticsEngine &diags, const std::string &msg)
{
	unsigned id = diags.getCustomDiagID(DiagnosticsEngine::Error, "%0");
	diags.Report(id) << msg;
}

// OpenMP directives and block literals of one function body, in source
// order. Lambdas and local classes are functions of their own (the
// Collector visits them); directives inside a block belong to the block.
class BodyScanner : public RecursiveASTVisitor<BodyScanner> {
public:
	BodyScanner(SourceManager &sm, DeclInfo &info) : sm(sm), info(info) {}

	bool TraverseLambdaExpr(LambdaExpr *) { return true; }

	bool TraverseDecl(Decl *d)
	{
		if (d && (isa<CXXRecordDecl>(d) || isa<FunctionDecl>(d)))
			return true;
		return RecursiveASTVisitor::TraverseDecl(d);
	}

	bool TraverseBlockExpr(BlockExpr *e)
	{
		SourcePoint p;
		if (locate(e->getBlockDecl()->getCaretLocation(), p.file, p.line))
			info.blocks.push_back(p);
		blockDepth++;
		bool ok = RecursiveASTVisitor::TraverseBlockExpr(e);
		blockDepth--;
		return ok;
	}

	bool VisitOMPExecutableDirective(OMPExecutableDirective *d)
	{
		if (blockDepth)
			return true;
		OpenMPDirectiveKind k = d->getDirectiveKind();
		OmpDirective od;
		od.kind = llvm::omp::getOpenMPDirectiveName(k).str();
		auto role = [](bool has, OmpRole r) { return has ? unsigned(r) : 0u; };
		od.roles = role(isOpenMPParallelDirective(k), kOmpParallel) |
			   role(isOpenMPTeamsDirective(k), kOmpTeams) |
			   role(k == llvm::omp::OMPD_task, kOmpTask) |
			   role(isOpenMPTaskLoopDirective(k), kOmpTaskloop) |
			   role(isOpenMPTargetExecutionDirective(k), kOmpTarget);
		if (od.roles && locate(d->getBeginLoc(), od.file, od.line))
			info.directives.push_back(od);
		return true;
	}

private:
	bool locate(SourceLocation loc, std::string &file, unsigned &line)
	{
		PresumedLoc pl = sm.getPresumedLoc(sm.getExpansionLoc(loc));
		if (!pl.isValid())
			return false;
		file = normalisePath(pl.getFilename());
		line = pl.getLine();
		return true;
	}

	SourceManager &sm;
	DeclInfo &info;
	unsigned blockDepth = 0;
};

class Collector : public RecursiveASTVisitor<Collector> {
public:
	Collector(ASTContext &ctx, FrontendState &state)
		: ctx(ctx), sm(ctx.getSourceManager()), names(ctx),
		  mangler(ctx.createMangleContext()), state(state)
	{
	}

	// Template instantiations and implicit members (lambda classes, implicit
	// constructors) become IR functions too: visit them.
	bool shouldVisitTemplateInstantiations() const { return true; }
	bool shouldVisitImplicitCode() const { return true; }

	bool VisitFunctionDecl(FunctionDecl *fd)
	{
		if (fd->isDependentContext() || fd->isInvalidDecl() || !fd->doesThisDeclarationHaveABody())
			return true;
		DeclInfo info;
		SourceLocation loc = sm.getExpansionLoc(fd->getLocation());
		PresumedLoc pl = sm.getPresumedLoc(loc);
		if (pl.isValid()) {
			info.file = normalisePath(pl.getFilename());
			info.line = pl.getLine();
		}
		info.systemHeader = sm.isInSystemHeader(loc);
		info.implicit = fd->isImplicit();
		if (auto *md = dyn_cast<CXXMethodDecl>(fd); md && md->getParent()->isLambda()) {
			info.lambdaChain = lambdaChain(md->getParent());
			const CXXRecordDecl *cls = md->getParent();
			if (!cls->isDependentType() && cls->isCompleteDefinition())
				info.closureSize = ctx.getTypeSizeInChars(ctx.getRecordType(cls)).getQuantity();
		}
		if (ctx.getLangOpts().OpenMP || ctx.getLangOpts().Blocks)
			BodyScanner(sm, info).TraverseStmt(fd->getBody());
		// The attribute may sit on any redeclaration (a prototype in a header).
		for (const FunctionDecl *r : fd->redecls())
			info.noInstrument = info.noInstrument || r->hasAttr<NoInstrumentFunctionAttr>();
		for (const std::string &n : linkageNames(fd))
			record(n, info);
		return true;
	}

	// A block literal in a global's initialiser: clang names its function
	// after the variable ("g_block_invoke").
	bool VisitVarDecl(VarDecl *vd)
	{
		if (!ctx.getLangOpts().Blocks || !vd->hasGlobalStorage() || vd->isLocalVarDecl() ||
		    !vd->getInit() || vd->isInvalidDecl() || vd->getDeclContext()->isDependentContext())
			return true;
		DeclInfo info;
		BodyScanner(sm, info).TraverseStmt(vd->getInit());
		if (!info.blocks.empty())
			record(names.getName(vd), info);
		return true;
	}

	// RecursiveASTVisitor does not reach a lambda's class (call operator,
	// static invoker, and the instantiations of a generic lambda).
	bool VisitLambdaExpr(LambdaExpr *e)
	{
		for (Decl *d : e->getLambdaClass()->decls()) {
			if (auto *fd = dyn_cast<FunctionDecl>(d))
				VisitFunctionDecl(fd);
			else if (auto *td = dyn_cast<FunctionTemplateDecl>(d))
				for (FunctionDecl *spec : td->specializations())
					VisitFunctionDecl(spec);
		}
		return true;
	}

private:
	void record(const std::string &name, const DeclInfo &info)
	{
		// Unnamed internal entities (lambdas in non-inline functions) are
		// numbered $_0, $_1... by each mangler in the order it meets them,
		// and CodeGen's order is not ours: such names are only looked up
		// with the number erased (normaliseName), and told apart by line.
		if (name.find("$_") == std::string::npos) {
			state.decls[name] = info;
			return;
		}
		state.unnumbered.emplace(normaliseName(name), info);
	}

	// "<lambda at file:line>" of cls and of every closure type around it.
	std::vector<std::string> lambdaChain(const CXXRecordDecl *cls)
	{
		std::vector<std::string> chain;
		for (const DeclContext *dc = cls; dc; dc = dc->getParent())
			if (const auto *rd = dyn_cast<CXXRecordDecl>(dc); rd && rd->isLambda()) {
				PresumedLoc pl = sm.getPresumedLoc(sm.getExpansionLoc(rd->getLocation()));
				if (!pl.isValid())
					return {};
				chain.insert(chain.begin(), lambdaTag(pl.getFilename(), pl.getLine()));
			}
		return chain;
	}

	// Constructors and destructors have several symbols (complete, base,
	// deleting): record them all.
	std::vector<std::string> linkageNames(FunctionDecl *fd)
	{
		std::vector<std::string> out;
		auto mangle = [&](GlobalDecl gd) {
			std::string s;
			llvm::raw_string_ostream os(s);
			mangler->mangleName(gd, os);
			os.flush();
			if (!s.empty() && s[0] == '\1') // asm label: emitted verbatim
				s.erase(0, 1);
			out.push_back(s);
		};
		if (auto *c = dyn_cast<CXXConstructorDecl>(fd)) {
			mangle(GlobalDecl(c, Ctor_Complete));
			mangle(GlobalDecl(c, Ctor_Base));
		} else if (auto *d = dyn_cast<CXXDestructorDecl>(fd)) {
			mangle(GlobalDecl(d, Dtor_Deleting));
			mangle(GlobalDecl(d, Dtor_Complete));
			mangle(GlobalDecl(d, Dtor_Base));
		} else {
			out.push_back(names.getName(fd));
		}
		return out;
	}

	ASTContext &ctx;
	SourceManager &sm;
	ASTNameGenerator names;
	std::unique_ptr<MangleContext> mangler;
	FrontendState &state;
};

class Consumer : public ASTConsumer {
public:
	void HandleTranslationUnit(ASTContext &ctx) override
	{
		if (ctx.getDiagnostics().hasErrorOccurred())
			return;
		FrontendState &state = frontendState();
		Collector(ctx, state).TraverseDecl(ctx.getTranslationUnitDecl());
	}
};

// Path of this shared object, so the backend can load it as a pass plugin.
std::string selfPath()
{
	Dl_info info;
	if (dladdr(reinterpret_cast<void *>(&frontendState), &info) && info.dli_fname)
		return info.dli_fname;
	return "";
}

class InstrumentAction : public PluginASTAction {
protected:
	bool ParseArgs(const CompilerInstance &ci, const std::vector<std::string> &args) override
	{
		FrontendState &state = frontendState();
		state = FrontendState();
		Options &opts = state.opts;
		std::string err = parseEnvironment(opts);
		opts.origin = "-fplugin-arg-instrument-";
		for (const std::string &a : args)
			if (err.empty())
				err = parseOption(opts, a);
		if (!err.empty())
			reportError(ci.getDiagnostics(), err);
		state.optionsValid = err.empty();
		// Returning false would make clang drop the plugin silently and
		// compile without hooks; the error above fails the compile instead.
		return true;
	}

	std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &ci, llvm::StringRef inFile) override
	{
		FrontendState &state = frontendState();
#if CLANG_VERSION_MAJOR < 15
		if (ci.getCodeGenOpts().LegacyPassManager) {
			reportError(ci.getDiagnostics(),
				    "paratrace instrument.so: -flegacy-pass-manager is not supported: the "
				    "pass only runs under the new pass manager, functions would not be "
				    "instrumented; drop -flegacy-pass-manager");
			return std::make_unique<ASTConsumer>();
		}
#endif
		std::string self = selfPath();
		if (self.empty()) {
			reportError(ci.getDiagnostics(),
				    "paratrace instrument.so: cannot find its own path (dladdr failed)");
			return std::make_unique<ASTConsumer>();
		}
		auto &plugins = ci.getCodeGenOpts().PassPlugins;
		bool present = false;
		for (const std::string &p : plugins)
			present = present || llvm::sys::fs::equivalent(p, self);
		if (!present)
			plugins.push_back(self);
		state.active = state.optionsValid;
		state.moduleId = inFile.str();
		state.decls.clear();
		state.unnumbered.clear();
		return std::make_unique<Consumer>();
	}

	ActionType getActionType() override { return AddBeforeMainAction; }
};

} // namespace
} // namespace paratrace

static FrontendPluginRegistry::Add<paratrace::InstrumentAction>
	registerAction("instrument", "paratrace: insert function entry/exit hooks");
