package io.github.llmresilience;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import org.jspecify.annotations.NullMarked;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The house rules of the layout, checked on the compiled main classes: a Spring-free core
 * wrapped by a thin Spring layer, and no package cycles.
 */
class ArchitectureTests {

	private static final JavaClasses CLASSES = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("io.github.llmresilience");

	/**
	 * Only the Spring layer knows Spring: the auto-configuration, the actuator endpoint
	 * and health, the Spring events, the adapters for Spring's own HTTP clients, and the
	 * fleet's store on Spring Data Redis, and the Spring AI adapter ({@code springai}: a
	 * {@code ChatModel} is a Spring AI type, and the SDK retries are switched off in
	 * Spring AI's own property beans), and the LangChain4j adapter ({@code langchain4j}:
	 * its models' retries are switched off by a bean post-processor). Metrics need only
	 * Micrometer.
	 */
	@Test
	void onlyTheSpringLayerDependsOnSpring() {
		noClasses().that()
			.resideOutsideOfPackages("io.github.llmresilience.autoconfigure..", "io.github.llmresilience.actuate..",
					"io.github.llmresilience.context.event..", "io.github.llmresilience.web..",
					"io.github.llmresilience.data.redis..", "io.github.llmresilience.springai..",
					"io.github.llmresilience.langchain4j..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("org.springframework..")
			.because("the core runs without Spring, built by LlmResilience.builder()")
			.check(CLASSES);
	}

	/**
	 * A concern and its internal mechanisms form one slice; no two slices depend on each
	 * other.
	 */
	@Test
	void concernsHaveNoCycles() {
		slices().matching("io.github.llmresilience.(*)..").should().beFreeOfCycles().check(CLASSES);
	}

	/**
	 * The build runs {@code *Tests} classes only: a class with tests under any other name
	 * would be silently left out of the count.
	 */
	@Test
	void everyClassWithTestsIsNamedTests() {
		JavaClasses tests = new ClassFileImporter().withImportOption(ImportOption.Predefined.ONLY_INCLUDE_TESTS)
			.importPackages("io.github.llmresilience");
		classes().that()
			.containAnyMethodsThat(DescribedPredicate.describe("are tests",
					(method) -> method.isAnnotatedWith(Test.class) || method.isAnnotatedWith(ParameterizedTest.class)))
			.and()
			.areTopLevelClasses()
			.should()
			.haveSimpleNameEndingWith("Tests")
			.check(tests);
		classes().that()
			.containAnyMethodsThat(DescribedPredicate.describe("are tests",
					(method) -> method.isAnnotatedWith(Test.class) || method.isAnnotatedWith(ParameterizedTest.class)))
			.and()
			.areNestedClasses()
			.should(ArchCondition.from(DescribedPredicate.describe("be nested in a *Tests class",
					(JavaClass nested) -> nested.getEnclosingClass()
						.map((outer) -> outer.getSimpleName().endsWith("Tests"))
						.orElse(false))))
			.check(tests);
	}

	/** Null is allowed only where a {@code @Nullable} says so, as in Spring Boot 4. */
	@Test
	void everyPackageIsNullMarked() {
		classes().should(ArchCondition.from(DescribedPredicate.describe("reside in a @NullMarked package",
				(JavaClass type) -> type.getPackage().isAnnotatedWith(NullMarked.class))))
			.check(CLASSES);
	}

	/**
	 * Every package is a concern with a name, not a grab bag: nothing lives in the root.
	 */
	@Test
	void everyClassBelongsToAConcern() {
		noClasses().should().resideInAPackage("io.github.llmresilience").allowEmptyShould(true).check(CLASSES);
	}

	/**
	 * {@code internal} is a wall, not a name: a concern's mechanisms are reached only
	 * through the concern's own package, so no class depends on another concern's
	 * {@code internal} (a concern is the first package under
	 * {@code io.github.llmresilience}: {@code web.stream} belongs to {@code web},
	 * {@code pool.internal} to {@code pool}).
	 */
	@Test
	void noConcernReachesIntoAnotherConcernsInternals() {
		classes().should(new ArchCondition<JavaClass>("not depend on another concern's internal package") {

			@Override
			public void check(JavaClass origin, ConditionEvents events) {
				Optional<String> own = concern(origin.getPackageName());
				origin.getDirectDependenciesFromSelf().forEach((dependency) -> {
					JavaClass target = dependency.getTargetClass().getBaseComponentType();
					String internalOf = internalConcern(target.getPackageName());
					if (internalOf != null && !own.map(internalOf::equals).orElse(false)) {
						events.add(SimpleConditionEvent.violated(origin, dependency.getDescription()));
					}
				});
			}

		}).check(CLASSES);
	}

	/**
	 * What a public type offers outside {@code internal} names no {@code internal} type:
	 * not in a public or protected constructor, method or field (parameters, return and
	 * field types with their type arguments, thrown exceptions), nor as a supertype.
	 */
	@Test
	void noPublicSignatureNamesAnInternalType() {
		classes().that()
			.resideOutsideOfPackage("..internal..")
			.should(new ArchCondition<JavaClass>("name no internal type in a public or protected signature") {

				@Override
				public void check(JavaClass type, ConditionEvents events) {
					if (!isVisibleOutsideItsPackage(type)) {
						return;
					}
					List<JavaType> supertypes = new ArrayList<>(type.getInterfaces());
					type.getSuperclass().ifPresent(supertypes::add);
					for (JavaType supertype : supertypes) {
						reportInternal(type, "supertype", supertype, events);
					}
					for (JavaMember member : type.getMembers()) {
						if (!member.getModifiers().contains(JavaModifier.PUBLIC)
								&& !member.getModifiers().contains(JavaModifier.PROTECTED)) {
							continue;
						}
						if (member instanceof JavaField field) {
							reportInternal(type, field.getFullName(), field.getType(), events);
						}
						else if (member instanceof JavaCodeUnit codeUnit && !codeUnit.getName().startsWith("lambda$")
								&& !codeUnit.getModifiers().contains(JavaModifier.SYNTHETIC)) {
							reportInternal(type, codeUnit.getFullName(), codeUnit.getReturnType(), events);
							for (JavaType parameter : codeUnit.getParameterTypes()) {
								reportInternal(type, codeUnit.getFullName(), parameter, events);
							}
							codeUnit.getThrowsClause()
								.getTypes()
								.forEach((thrown) -> reportInternal(type, codeUnit.getFullName(), thrown, events));
						}
					}
				}

			})
			.check(CLASSES);
	}

	private static void reportInternal(JavaClass type, String where, JavaType named, ConditionEvents events) {
		for (JavaClass raw : named.getAllInvolvedRawTypes()) {
			if (internalConcern(raw.getBaseComponentType().getPackageName()) != null) {
				events.add(SimpleConditionEvent.violated(type, where + " names internal " + raw.getName()));
			}
		}
	}

	private static boolean isVisibleOutsideItsPackage(JavaClass type) {
		for (Optional<JavaClass> current = Optional.of(type); current
			.isPresent(); current = current.get().getEnclosingClass()) {
			if (!current.get().getModifiers().contains(JavaModifier.PUBLIC) || current.get().isAnonymousClass()
					|| current.get().isLocalClass()) {
				return false;
			}
		}
		return true;
	}

	private static final Pattern CONCERN = Pattern.compile("io\\.github\\.llmresilience\\.([^.]+)(\\..*)?");

	private static final Pattern INTERNAL = Pattern.compile("io\\.github\\.llmresilience\\.([^.]+)\\.internal(\\..*)?");

	private static Optional<String> concern(String packageName) {
		Matcher matcher = CONCERN.matcher(packageName);
		return matcher.matches() ? Optional.of(matcher.group(1)) : Optional.empty();
	}

	private static @Nullable String internalConcern(String packageName) {
		Matcher matcher = INTERNAL.matcher(packageName);
		return matcher.matches() ? matcher.group(1) : null;
	}

}
