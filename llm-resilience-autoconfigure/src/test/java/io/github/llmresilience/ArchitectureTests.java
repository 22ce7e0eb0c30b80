package io.github.llmresilience;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import org.jspecify.annotations.NullMarked;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;

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
	 * Spring AI's own property beans). Metrics need only Micrometer.
	 */
	@Test
	void onlyTheSpringLayerDependsOnSpring() {
		noClasses().that()
			.resideOutsideOfPackages("io.github.llmresilience.autoconfigure..", "io.github.llmresilience.actuate..",
					"io.github.llmresilience.context.event..", "io.github.llmresilience.web..",
					"io.github.llmresilience.data.redis..", "io.github.llmresilience.springai..")
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

}
