package io.github.llmresilience.classify.vendor;

import java.util.Map;
import java.util.TreeMap;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A vendor is one folder and one registration line: nothing outside its folder names what
 * is in it but the registration list (and the public stream adapters, which name the
 * vendor whose stream they read), and a folder needs nothing but the vendor kit, the
 * classification vocabulary and targets.
 */
class VendorFolderTests {

	private static final String VENDOR = "io.github.llmresilience.classify.vendor";

	private static final JavaClasses CLASSES = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("io.github.llmresilience");

	@Test
	void onlyTheRegistrationListAndTheStreamAdaptersNameAVendorFolder() {
		noClasses().that()
			.resideOutsideOfPackages(VENDOR + ".*..", "io.github.llmresilience.web.stream")
			.and()
			.doNotHaveFullyQualifiedName(Vendors.class.getName())
			.should()
			.dependOnClassesThat()
			.resideInAPackage(VENDOR + ".*..")
			.because("adding a vendor touches its folder and Vendors.REGISTERED only")
			.check(CLASSES);
	}

	@Test
	void aVendorFolderNeedsOnlyTheKitTheVocabularyAndTargets() {
		classes().that()
			.resideInAPackage(VENDOR + ".*..")
			.should()
			.onlyDependOnClassesThat()
			.resideInAnyPackage(VENDOR + "..", "io.github.llmresilience.classify", "io.github.llmresilience.target",
					"java..", "org.jspecify..", "tools.jackson..")
			.check(CLASSES);
	}

	@Test
	void aVendorFolderHasOnePublicEntry() {
		Map<String, Integer> publicTypes = new TreeMap<>();
		for (JavaClass type : CLASSES) {
			String folder = type.getPackageName();
			if (folder.startsWith(VENDOR + ".") && type.isTopLevelClass()
					&& type.getModifiers().contains(JavaModifier.PUBLIC)) {
				publicTypes.merge(folder, 1, Integer::sum);
			}
		}
		assertThat(publicTypes).isNotEmpty().allSatisfy((folder, count) -> assertThat(count).as(folder).isEqualTo(1));
	}

}
